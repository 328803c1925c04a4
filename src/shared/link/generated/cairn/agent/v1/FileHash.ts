// Original file: proto/cairn/agent/v1/agent.proto


/**
 * One file's content hash.
 */
export interface FileHashInput {
  /**
   * The file's path in the snapshot.
   */
  'path'?: (string);
  /**
   * Lower-case hex SHA-256 of the bytes read.
   */
  'sha256'?: (string);
}

/**
 * One file's content hash.
 */
export interface FileHash {
  /**
   * The file's path in the snapshot.
   */
  'path': (string);
  /**
   * Lower-case hex SHA-256 of the bytes read.
   */
  'sha256': (string);
}
