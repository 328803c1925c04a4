// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Opens a snapshot of a server's files. Answered by SnapshotManifest payloads (`more` while more
 * entries follow).
 */
export interface SnapshotOpenInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * Chosen by the Controller; names the snapshot in later requests.
   */
  'snapshotId'?: (string);
  /**
   * True to quiesce a running server as its template says (a backup); false to read it as it is
   * (a migration's first copy, made while the game runs).
   */
  'quiesce'?: (boolean);
  /**
   * The Agent closes the snapshot by itself this long after the last request that named it.
   */
  'leaseMs'?: (number);
}

/**
 * Opens a snapshot of a server's files. Answered by SnapshotManifest payloads (`more` while more
 * entries follow).
 */
export interface SnapshotOpen {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Chosen by the Controller; names the snapshot in later requests.
   */
  'snapshotId': (string);
  /**
   * True to quiesce a running server as its template says (a backup); false to read it as it is
   * (a migration's first copy, made while the game runs).
   */
  'quiesce': (boolean);
  /**
   * The Agent closes the snapshot by itself this long after the last request that named it.
   */
  'leaseMs': (number);
}
