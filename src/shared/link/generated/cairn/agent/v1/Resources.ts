// Original file: proto/cairn/agent/v1/agent.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Amounts of the three resources the Controller schedules and reports.
 */
export interface ResourcesInput {
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis'?: (number | string | Long);
  /**
   * Memory in bytes.
   */
  'memoryBytes'?: (number | string | Long);
  /**
   * Disk in bytes.
   */
  'diskBytes'?: (number | string | Long);
}

/**
 * Amounts of the three resources the Controller schedules and reports.
 */
export interface Resources {
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis': (number);
  /**
   * Memory in bytes.
   */
  'memoryBytes': (number);
  /**
   * Disk in bytes.
   */
  'diskBytes': (number);
}
