// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Lists one directory of a server.
 */
export interface FileListInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * Directory relative to the server's root; "." is the root.
   */
  'path'?: (string);
}

/**
 * Lists one directory of a server.
 */
export interface FileList {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Directory relative to the server's root; "." is the root.
   */
  'path': (string);
}
