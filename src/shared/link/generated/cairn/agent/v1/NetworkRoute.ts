// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Where a proxy may send players: one running network member.
 */
export interface NetworkRouteInput {
  /**
   * The member's server id (UUID).
   */
  'serverId'?: (string);
  /**
   * The member's name.
   */
  'name'?: (string);
  /**
   * Where the proxy reaches it: its Node's address (host name or IP, no port).
   */
  'address'?: (string);
  /**
   * The member's game port on that Node.
   */
  'port'?: (number);
}

/**
 * Where a proxy may send players: one running network member.
 */
export interface NetworkRoute {
  /**
   * The member's server id (UUID).
   */
  'serverId': (string);
  /**
   * The member's name.
   */
  'name': (string);
  /**
   * Where the proxy reaches it: its Node's address (host name or IP, no port).
   */
  'address': (string);
  /**
   * The member's game port on that Node.
   */
  'port': (number);
}
