// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Asks for a server's usage history, which the Agent keeps in memory for the servers it runs:
 * one sample per status interval (10 s) for the last hour, and one per six intervals for a day.
 */
export interface UsageHistoryInput {
  /**
   * The server.
   */
  'serverId'?: (string);
  /**
   * "10m" or "1h" (fine samples), "6h" or "24h" (coarse samples).
   */
  'window'?: (string);
}

/**
 * Asks for a server's usage history, which the Agent keeps in memory for the servers it runs:
 * one sample per status interval (10 s) for the last hour, and one per six intervals for a day.
 */
export interface UsageHistory {
  /**
   * The server.
   */
  'serverId': (string);
  /**
   * "10m" or "1h" (fine samples), "6h" or "24h" (coarse samples).
   */
  'window': (string);
}
