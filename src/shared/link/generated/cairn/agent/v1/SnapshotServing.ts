// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Answers SnapshotServe.
 */
export interface SnapshotServingInput {
  /**
   * The TCP port the snapshot's files are served on (on the Node's reachable address).
   */
  'port'?: (number);
}

/**
 * Answers SnapshotServe.
 */
export interface SnapshotServing {
  /**
   * The TCP port the snapshot's files are served on (on the Node's reachable address).
   */
  'port': (number);
}
