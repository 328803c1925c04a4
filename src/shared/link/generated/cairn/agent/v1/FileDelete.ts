// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Deletes a file, or a directory with everything in it.
 */
export interface FileDeleteInput {
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
 * Deletes a file, or a directory with everything in it.
 */
export interface FileDelete {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Path relative to the server's root.
   */
  'path': (string);
}
