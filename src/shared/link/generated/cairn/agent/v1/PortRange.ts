// Original file: proto/cairn/agent/v1/agent.proto


/**
 * An inclusive range of host ports.
 */
export interface PortRangeInput {
  /**
   * The lowest port of the range.
   */
  'first'?: (number);
  /**
   * The highest port of the range (at least `first`).
   */
  'last'?: (number);
}

/**
 * An inclusive range of host ports.
 */
export interface PortRange {
  /**
   * The lowest port of the range.
   */
  'first': (number);
  /**
   * The highest port of the range (at least `first`).
   */
  'last': (number);
}
