// Original file: proto/cairn/agent/v1/agent.proto


/**
 * When a server with a player count goes to sleep, and whether a login wakes it.
 */
export interface SleepPolicyInput {
  /**
   * How long its players online (by Server List Ping) must stay 0 before it sleeps (10 to 86400).
   */
  'afterEmptySeconds'?: (number);
  /**
   * Whether a Minecraft login on its sleeping port wakes it (the player is told to join again).
   */
  'wakeOnJoin'?: (boolean);
}

/**
 * When a server with a player count goes to sleep, and whether a login wakes it.
 */
export interface SleepPolicy {
  /**
   * How long its players online (by Server List Ping) must stay 0 before it sleeps (10 to 86400).
   */
  'afterEmptySeconds': (number);
  /**
   * Whether a Minecraft login on its sleeping port wakes it (the player is told to join again).
   */
  'wakeOnJoin': (boolean);
}
