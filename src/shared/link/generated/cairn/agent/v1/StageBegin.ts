// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Starts an empty stage for a server (which need not be on this Node yet: a migration's target).
 */
export interface StageBeginInput {
  /**
   * Chosen by the Controller.
   */
  'stageId'?: (string);
  /**
   * The server the stage is for.
   */
  'serverId'?: (string);
  /**
   * The Agent removes the stage this long after the last request that named it.
   */
  'leaseMs'?: (number);
}

/**
 * Starts an empty stage for a server (which need not be on this Node yet: a migration's target).
 */
export interface StageBegin {
  /**
   * Chosen by the Controller.
   */
  'stageId': (string);
  /**
   * The server the stage is for.
   */
  'serverId': (string);
  /**
   * The Agent removes the stage this long after the last request that named it.
   */
  'leaseMs': (number);
}
