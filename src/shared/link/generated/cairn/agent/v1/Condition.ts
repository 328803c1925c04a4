// Original file: proto/cairn/agent/v1/agent.proto


/**
 * Why observed state differs from desired state, or why something is under pressure.
 */
export interface ConditionInput {
  /**
   * Stable identifier: the same situation keeps the same id while it lasts (e.g. "DISK_PRESSURE").
   */
  'id'?: (string);
  /**
   * Machine-readable cause in UPPER_SNAKE_CASE; reasons ending in _PRESSURE degrade a Node.
   */
  'reason'?: (string);
  /**
   * Human-readable explanation.
   */
  'message'?: (string);
  /**
   * When the situation began (ISO 8601).
   */
  'since'?: (string);
}

/**
 * Why observed state differs from desired state, or why something is under pressure.
 */
export interface Condition {
  /**
   * Stable identifier: the same situation keeps the same id while it lasts (e.g. "DISK_PRESSURE").
   */
  'id': (string);
  /**
   * Machine-readable cause in UPPER_SNAKE_CASE; reasons ending in _PRESSURE degrade a Node.
   */
  'reason': (string);
  /**
   * Human-readable explanation.
   */
  'message': (string);
  /**
   * When the situation began (ISO 8601).
   */
  'since': (string);
}
