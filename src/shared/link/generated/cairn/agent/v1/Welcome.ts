// Original file: proto/cairn/agent/v1/agent.proto


export interface WelcomeInput {
  /**
   * The Node the credential belongs to.
   */
  'nodeId'?: (string);
  /**
   * How often the Agent sends a heartbeat, in milliseconds (normally 5000).
   */
  'heartbeatIntervalMs'?: (number);
  /**
   * The address the Controller sees the Agent connecting from.
   */
  'observedAddress'?: (string);
}

export interface Welcome {
  /**
   * The Node the credential belongs to.
   */
  'nodeId': (string);
  /**
   * How often the Agent sends a heartbeat, in milliseconds (normally 5000).
   */
  'heartbeatIntervalMs': (number);
  /**
   * The address the Controller sees the Agent connecting from.
   */
  'observedAddress': (string);
}
