// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * One file a StagePull fetches.
 */
export interface PullFileInput {
  /**
   * A FILE entry's path in the snapshot, and the path it takes in the stage.
   */
  'path'?: (string);
  /**
   * Hex sha256 of the file's content as the manifest gives it.
   */
  'sha256'?: (string);
  /**
   * The file's size as the manifest gives it.
   */
  'size'?: (number | string | Long);
  /**
   * Permission bits.
   */
  'mode'?: (number);
}

/**
 * One file a StagePull fetches.
 */
export interface PullFile {
  /**
   * A FILE entry's path in the snapshot, and the path it takes in the stage.
   */
  'path': (string);
  /**
   * Hex sha256 of the file's content as the manifest gives it.
   */
  'sha256': (string);
  /**
   * The file's size as the manifest gives it.
   */
  'size': (number);
  /**
   * Permission bits.
   */
  'mode': (number);
}
