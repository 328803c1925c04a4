// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Drops a stage. Aborting an unknown stage is not an error.
 */
export interface StageAbortInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
}

/**
 * Drops a stage. Aborting an unknown stage is not an error.
 */
export interface StageAbort {
  /**
   * The stage.
   */
  'stageId': (string);
}
