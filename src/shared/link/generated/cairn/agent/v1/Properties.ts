// Original file: proto/cairn/agent/v1/agent.proto


export interface PropertiesInput {
  /**
   * The settings of server.properties after the request.
   */
  'values'?: ({[key: string]: string});
}

export interface Properties {
  /**
   * The settings of server.properties after the request.
   */
  'values': ({[key: string]: string});
}
