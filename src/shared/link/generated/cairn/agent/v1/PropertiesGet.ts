// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Reads server.properties.
 */
export interface PropertiesGetInput {
  /**
   * The server.
   */
  'serverId'?: (string);
}

/**
 * Reads server.properties.
 */
export interface PropertiesGet {
  /**
   * The server.
   */
  'serverId': (string);
}
