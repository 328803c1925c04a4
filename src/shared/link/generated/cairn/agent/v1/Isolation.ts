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
}
