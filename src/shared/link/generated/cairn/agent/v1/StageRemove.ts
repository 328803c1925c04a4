// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Removes a file or directory (with everything in it) from a stage; a missing path is not an error.
 */
export interface StageRemoveInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
  /**
   * The path.
   */
  'path'?: (string);
}

/**
 * Removes a file or directory (with everything in it) from a stage; a missing path is not an error.
 */
export interface StageRemove {
  /**
   * The stage.
   */
  'stageId': (string);
  /**
   * The path.
   */
  'path': (string);
}
