// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Fills a new stage from a backup kept on this Node, checking every file's sha256.
 */
export interface StageFromLocalInput {
  /**
   * Chosen by the Controller.
   */
  'stageId'?: (string);
  /**
   * The server the stage is for.
   */
  'serverId'?: (string);
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath'?: (string);
  /**
   * The backup.
   */
  'backupId'?: (string);
  /**
   * As in StageBegin.
   */
  'leaseMs'?: (number);
}

/**
 * Fills a new stage from a backup kept on this Node, checking every file's sha256.
 */
export interface StageFromLocal {
  /**
   * Chosen by the Controller.
   */
  'stageId': (string);
  /**
   * The server the stage is for.
   */
  'serverId': (string);
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath': (string);
  /**
   * The backup.
   */
  'backupId': (string);
  /**
   * As in StageBegin.
   */
  'leaseMs': (number);
}
