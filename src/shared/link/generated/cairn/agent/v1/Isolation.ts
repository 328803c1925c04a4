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
   * How each server's disk limit (resources.diskBytes) is held: "quota" (project quotas: the game's
   * writes past it fail), "accounting" (the Agent measures its tree and refuses uploads past it), or
   * empty from an Agent older than this field (no limit held).
   */
  'disk'?: (string);
  /**
   * Each game may have at most 4096 tasks (processes and threads).
   */
  'pids'?: (boolean);
  /**
   * The uids (and the same gids) games get here, "FIRST-LAST" (`cairn-agent --game-uids`); empty
   * when games do not run as their own users.
   */
  'gameUids'?: (string);
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
   * How each server's disk limit (resources.diskBytes) is held: "quota" (project quotas: the game's
   * writes past it fail), "accounting" (the Agent measures its tree and refuses uploads past it), or
   * empty from an Agent older than this field (no limit held).
   */
  'disk': (string);
  /**
   * Each game may have at most 4096 tasks (processes and threads).
   */
  'pids': (boolean);
  /**
   * The uids (and the same gids) games get here, "FIRST-LAST" (`cairn-agent --game-uids`); empty
   * when games do not run as their own users.
   */
  'gameUids': (string);
  /**
   * Each game has a network namespace of its own: reachable only on its ports, and kept from the
   * Node's loopback, local addresses, link-local and private ranges unless the operator allows them.
   */
  'network': (boolean);
}
