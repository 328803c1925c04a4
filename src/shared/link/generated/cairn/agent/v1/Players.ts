// Original file: proto/cairn/agent/v1/agent.proto


/**
 * What a server's Server List Ping answered.
 */
export interface PlayersInput {
  /**
   * Players online now.
   */
  'online'?: (number);
  /**
   * The most the server takes (its max-players).
   */
  'max'?: (number);
}

/**
 * What a server's Server List Ping answered.
 */
export interface Players {
  /**
   * Players online now.
   */
  'online': (number);
  /**
   * The most the server takes (its max-players).
   */
  'max': (number);
}
