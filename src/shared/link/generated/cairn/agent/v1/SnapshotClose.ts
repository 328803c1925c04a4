// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Ends a snapshot (resuming a quiesced server). Closing an unknown snapshot is not an error.
 */
export interface SnapshotCloseInput {
  /**
   * The snapshot.
   */
  'snapshotId'?: (string);
}

/**
 * Ends a snapshot (resuming a quiesced server). Closing an unknown snapshot is not an error.
 */
export interface SnapshotClose {
  /**
   * The snapshot.
   */
  'snapshotId': (string);
}
