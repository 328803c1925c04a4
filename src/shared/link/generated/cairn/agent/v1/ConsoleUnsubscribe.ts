// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Stops relaying console lines of the server (when the last watcher leaves).
 */
export interface ConsoleUnsubscribeInput {
  /**
   * The server.
   */
  'serverId'?: (string);
}

/**
 * Stops relaying console lines of the server (when the last watcher leaves).
 */
export interface ConsoleUnsubscribe {
  /**
   * The server.
   */
  'serverId': (string);
}
