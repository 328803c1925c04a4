// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Starts relaying the server's console lines as ConsoleLine messages.
 */
export interface ConsoleSubscribeInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * How many of the last lines to replay first (answered in ConsoleReplay).
   */
  'tail'?: (number);
}

/**
 * Starts relaying the server's console lines as ConsoleLine messages.
 */
export interface ConsoleSubscribe {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * How many of the last lines to replay first (answered in ConsoleReplay).
   */
  'tail': (number);
}
