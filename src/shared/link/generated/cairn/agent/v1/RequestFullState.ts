// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Asks the Controller for the Node's full desired state.
 */
export interface RequestFullStateInput {
  /**
   * The last revision the Agent applied in sequence on this stream (for logs).
   */
  'lastRevision'?: (number | string | Long);
  /**
   * The revision that arrived out of sequence.
   */
  'receivedRevision'?: (number | string | Long);
}

/**
 * Asks the Controller for the Node's full desired state.
 */
export interface RequestFullState {
  /**
   * The last revision the Agent applied in sequence on this stream (for logs).
   */
  'lastRevision': (number);
  /**
   * The revision that arrived out of sequence.
   */
  'receivedRevision': (number);
}
