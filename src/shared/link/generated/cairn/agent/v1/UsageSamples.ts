// Original file: proto/cairn/agent/v1/agent.proto

import type { UsageSampleInput as _cairn_agent_v1_UsageSampleInput, UsageSample as _cairn_agent_v1_UsageSample } from '../../../cairn/agent/v1/UsageSample.js';

/**
 * Answers UsageHistory: the window's samples, oldest first (none for a server never sampled here).
 */
export interface UsageSamplesInput {
  'samples'?: (_cairn_agent_v1_UsageSampleInput)[];
  /**
   * The time between samples of this window, in milliseconds.
   */
  'intervalMs'?: (number);
}

/**
 * Answers UsageHistory: the window's samples, oldest first (none for a server never sampled here).
 */
export interface UsageSamples {
  'samples': (_cairn_agent_v1_UsageSample)[];
  /**
   * The time between samples of this window, in milliseconds.
   */
  'intervalMs': (number);
}
