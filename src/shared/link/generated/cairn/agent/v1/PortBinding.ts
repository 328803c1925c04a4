// Original file: proto/cairn/agent/v1/agent.proto


/**
 * A port a server listens on, as bound on the host.
 */
export interface PortBindingInput {
  /**
   * Name of the port, e.g. "game", "query".
   */
  'name'?: (string);
  /**
   * "TCP" or "UDP".
   */
  'protocol'?: (string);
  /**
   * The host port number.
   */
  'hostPort'?: (number);
}

/**
 * A port a server listens on, as bound on the host.
 */
export interface PortBinding {
  /**
   * Name of the port, e.g. "game", "query".
   */
  'name': (string);
  /**
   * "TCP" or "UDP".
   */
  'protocol': (string);
  /**
   * The host port number.
   */
  'hostPort': (number);
}
