// Original file: proto/cairn/agent/v1/agent.proto


/**
 * How the Agent restarts a crashed server.
 */
export interface RestartPolicyInput {
  /**
   * Restarts allowed within the window; 0 disables automatic restarts.
   */
  'maxRestarts'?: (number);
  /**
   * The sliding window, in seconds, over which restarts are counted.
   */
  'windowSeconds'?: (number);
}

/**
 * How the Agent restarts a crashed server.
 */
export interface RestartPolicy {
  /**
   * Restarts allowed within the window; 0 disables automatic restarts.
   */
  'maxRestarts': (number);
  /**
   * The sliding window, in seconds, over which restarts are counted.
   */
  'windowSeconds': (number);
}
