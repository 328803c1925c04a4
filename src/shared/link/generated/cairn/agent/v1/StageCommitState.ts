// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Answers StageCommitted.
 */
export interface StageCommitStateInput {
  /**
   * True when every file of the stage was moved into the server's root (its software may still
   * need installing: the Agent does that before the server's next start).
   */
  'committed'?: (boolean);
}

/**
 * Answers StageCommitted.
 */
export interface StageCommitState {
  /**
   * True when every file of the stage was moved into the server's root (its software may still
   * need installing: the Agent does that before the server's next start).
   */
  'committed': (boolean);
}
