// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * CPU and memory a server reserves on its Node (held even while it is stopped).
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
}

/**
 * CPU and memory a server reserves on its Node (held even while it is stopped).
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
}
