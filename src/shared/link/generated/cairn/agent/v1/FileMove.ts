// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Moves or renames a file or directory within the server's root. `to` must not exist and its
 * directory must; `.cairn` and the forwarding secret's file (or a directory holding it) are
 * refused on either side.
 */
export interface FileMoveInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * The entry to move, relative to the server's root; a symlink is moved itself.
   */
  'from'?: (string);
  /**
   * Its new path, relative to the server's root.
   */
  'to'?: (string);
}

/**
 * Moves or renames a file or directory within the server's root. `to` must not exist and its
 * directory must; `.cairn` and the forwarding secret's file (or a directory holding it) are
 * refused on either side.
 */
export interface FileMove {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * The entry to move, relative to the server's root; a symlink is moved itself.
   */
  'from': (string);
  /**
   * Its new path, relative to the server's root.
   */
  'to': (string);
}
