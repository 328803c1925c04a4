// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Lists a stage as a manifest (answered like SnapshotOpen, with SnapshotManifest payloads).
 */
export interface StageScanInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
}

/**
 * Lists a stage as a manifest (answered like SnapshotOpen, with SnapshotManifest payloads).
 */
export interface StageScan {
  /**
   * The stage.
   */
  'stageId': (string);
}
