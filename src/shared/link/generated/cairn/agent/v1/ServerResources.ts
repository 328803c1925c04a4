// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * CPU and memory a server reserves on its Node (held even while it is stopped), and its disk limit.
 */
export interface ServerResourcesInput {
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis'?: (number | string | Long);
  /**
   * Memory in bytes.
   */
  'memoryBytes'?: (number | string | Long);
  /**
   * The most the server's files may hold, in bytes (contract: "Containment"); 0: no limit. Not a
   * reservation: a change applies to a running game at once, without a restart.
   */
  'diskBytes'?: (number | string | Long);
}

/**
 * CPU and memory a server reserves on its Node (held even while it is stopped), and its disk limit.
 */
export interface ServerResources {
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis': (number);
  /**
   * Memory in bytes.
   */
  'memoryBytes': (number);
  /**
   * The most the server's files may hold, in bytes (contract: "Containment"); 0: no limit. Not a
   * reservation: a change applies to a running game at once, without a restart.
   */
  'diskBytes': (number);
}
