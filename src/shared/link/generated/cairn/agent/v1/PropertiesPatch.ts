// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Changes server.properties keeping other lines and comments.
 */
export interface PropertiesPatchInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * Keys to set.
   */
  'set'?: ({[key: string]: string});
  /**
   * Keys to remove.
   */
  'remove'?: (string)[];
}

/**
 * Changes server.properties keeping other lines and comments.
 */
export interface PropertiesPatch {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * Keys to set.
   */
  'set': ({[key: string]: string});
  /**
   * Keys to remove.
   */
  'remove': (string)[];
}
