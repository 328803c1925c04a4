// Original file: proto/cairn/agent/v1/agent.proto

import type { PlayersInput as _cairn_agent_v1_PlayersInput, Players as _cairn_agent_v1_Players } from '../../../cairn/agent/v1/Players.js';
import type { Long } from '@grpc/proto-loader';

/**
 * A server's usage at one time. A coarse sample stands for six fine ones: CPU their mean, memory
 * and players their highest.
 */
export interface UsageSampleInput {
  /**
   * When (ms since the Unix epoch).
   */
  'atUnixMs'?: (number | string | Long);
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis'?: (number | string | Long);
  /**
   * Resident memory in bytes.
   */
  'memoryBytes'?: (number | string | Long);
  /**
   * Players online; unset when the server's ping did not answer.
   */
  'players'?: (_cairn_agent_v1_PlayersInput | null);
}

/**
 * A server's usage at one time. A coarse sample stands for six fine ones: CPU their mean, memory
 * and players their highest.
 */
export interface UsageSample {
  /**
   * When (ms since the Unix epoch).
   */
  'atUnixMs': (number);
  /**
   * CPU in thousandths of a core.
   */
  'cpuMillis': (number);
  /**
   * Resident memory in bytes.
   */
  'memoryBytes': (number);
  /**
   * Players online; unset when the server's ping did not answer.
   */
  'players': (_cairn_agent_v1_Players | null);
}
