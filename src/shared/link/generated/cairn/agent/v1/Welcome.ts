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
  /**
   * The longest the Controller stays silent on this stream, in milliseconds: it sends a Keepalive
   * when it has said nothing for a third of it. An Agent that hears nothing for this long (a frozen
   * Controller, whose TCP link stays open) drops the stream and dials again, and gives each later
   * stream as long to be welcomed. Half the lease time to live, so the Agent has left before another
   * Controller can take the Node. 0 (a Controller alone on its store, or one older than this field):
   * no limit, gRPC keepalive only.
   */
  'silenceLimitMs'?: (number);
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
  /**
   * The longest the Controller stays silent on this stream, in milliseconds: it sends a Keepalive
   * when it has said nothing for a third of it. An Agent that hears nothing for this long (a frozen
   * Controller, whose TCP link stays open) drops the stream and dials again, and gives each later
   * stream as long to be welcomed. Half the lease time to live, so the Agent has left before another
   * Controller can take the Node. 0 (a Controller alone on its store, or one older than this field):
   * no limit, gRPC keepalive only.
   */
  'silenceLimitMs': (number);
}
