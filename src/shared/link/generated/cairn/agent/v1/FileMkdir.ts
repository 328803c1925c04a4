// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Creates one directory (its parent must exist).
 */
export interface FileMkdirInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * Path relative to the server's root.
   */
  'path'?: (string);
}

/**
 * Creates one directory (its parent must exist).
 */
export interface FileMkdir {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Path relative to the server's root.
   */
  'path': (string);
}
