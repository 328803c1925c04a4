// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Types one line into the server's console.
 */
export interface ConsoleCommandInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * One line without the leading slash.
   */
  'command'?: (string);
}

/**
 * Types one line into the server's console.
 */
export interface ConsoleCommand {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * One line without the leading slash.
   */
  'command': (string);
}
