// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Asks whether a stage's commit completed on this Node (also one an Agent restart finished), so a
 * Controller that lost the commit's answer can tell a restore that happened from one that did not.
 * Answered with a StageCommitState payload.
 */
export interface StageCommittedInput {
  /**
   * The stage.
   */
  'stageId'?: (string);
}

/**
 * Asks whether a stage's commit completed on this Node (also one an Agent restart finished), so a
 * Controller that lost the commit's answer can tell a restore that happened from one that did not.
 * Answered with a StageCommitState payload.
 */
export interface StageCommitted {
  /**
   * The stage.
   */
  'stageId': (string);
}
