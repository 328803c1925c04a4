// Original file: proto/cairn/agent/v1/agent.proto


/**
 * The parts of a game's box this Node enforces (contract: "Containment").
 */
export interface IsolationInput {
  /**
   * Each game runs as its own uid and gid.
   */
  'users'?: (boolean);
  /**
   * Each game sees only its own directory, the runtime and the system's libraries.
   */
  'filesystem'?: (boolean);
  /**
   * Each game's memory is capped at its reservation.
   */
  'memory'?: (boolean);
  /**
   * Each game's CPU is capped at its reservation.
   */
  'cpu'?: (boolean);
  /**
   * Each game has a network namespace of its own: reachable only on its ports, and kept from the
   * Node's loopback, local addresses, link-local and private ranges unless the operator allows them.
   */
  'network'?: (boolean);
}

/**
 * The parts of a game's box this Node enforces (contract: "Containment").
 */
export interface Isolation {
  /**
   * Each game runs as its own uid and gid.
   */
  'users': (boolean);
  /**
   * Each game sees only its own directory, the runtime and the system's libraries.
   */
  'filesystem': (boolean);
  /**
   * Each game's memory is capped at its reservation.
   */
  'memory': (boolean);
  /**
   * Each game's CPU is capped at its reservation.
   */
  'cpu': (boolean);
  /**
   * Each game has a network namespace of its own: reachable only on its ports, and kept from the
   * Node's loopback, local addresses, link-local and private ranges unless the operator allows them.
   */
  'network': (boolean);
}
