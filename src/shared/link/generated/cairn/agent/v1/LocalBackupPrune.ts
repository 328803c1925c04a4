// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Removes backups from a store on this Node and then every blob no remaining manifest references.
 */
export interface LocalBackupPruneInput {
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath'?: (string);
  /**
   * The backups to remove (unknown ones are ignored).
   */
  'backupIds'?: (string)[];
}

/**
 * Removes backups from a store on this Node and then every blob no remaining manifest references.
 */
export interface LocalBackupPrune {
  /**
   * The destination's absolute directory on the Node.
   */
  'destinationPath': (string);
  /**
   * The backups to remove (unknown ones are ignored).
   */
  'backupIds': (string)[];
}
