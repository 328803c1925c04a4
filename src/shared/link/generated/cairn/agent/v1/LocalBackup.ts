// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Takes a backup into a content-addressed store on this Node (NODE_DIRECTORY); answered with
 * BackupResult once the manifest is written.
 */
export interface LocalBackupInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * The backup record's id; names the manifest.
   */
  'backupId'?: (string);
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath'?: (string);
  /**
   * True to quiesce a running server as its template says.
   */
  'quiesce'?: (boolean);
}

/**
 * Takes a backup into a content-addressed store on this Node (NODE_DIRECTORY); answered with
 * BackupResult once the manifest is written.
 */
export interface LocalBackup {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The backup record's id; names the manifest.
   */
  'backupId': (string);
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath': (string);
  /**
   * True to quiesce a running server as its template says.
   */
  'quiesce': (boolean);
}
