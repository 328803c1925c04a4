// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Answers StagePull.
 */
export interface StagePulledInput {
  /**
   * The bytes written into the stage.
   */
  'bytes'?: (number | string | Long);
}

/**
 * Answers StagePull.
 */
export interface StagePulled {
  /**
   * The bytes written into the stage.
   */
  'bytes': (number);
}
