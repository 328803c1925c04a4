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
  /**
   * True to list the files without reading them: a FILE entry's sha256 is empty unless the Agent
   * knows it already (its hash cache). For a copy whose every file is checked against the sha256
   * the source computes as it sends it (a migration's first copy): the world is read once, not
   * twice, and the hashes so computed serve the next snapshot. An older Agent hashes anyway.
   */
  'unhashed'?: (boolean);
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
  /**
   * True to list the files without reading them: a FILE entry's sha256 is empty unless the Agent
   * knows it already (its hash cache). For a copy whose every file is checked against the sha256
   * the source computes as it sends it (a migration's first copy): the world is read once, not
   * twice, and the hashes so computed serve the next snapshot. An older Agent hashes anyway.
   */
  'unhashed': (boolean);
}
