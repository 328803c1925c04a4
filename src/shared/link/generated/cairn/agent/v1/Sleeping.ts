// Original file: proto/cairn/agent/v1/agent.proto


/**
 * A server asleep since `since` (ISO 8601).
 */
export interface SleepingInput {
  'since'?: (string);
}

/**
 * A server asleep since `since` (ISO 8601).
 */
export interface Sleeping {
  'since': (string);
}
