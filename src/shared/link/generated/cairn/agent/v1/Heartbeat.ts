// Original file: proto/cairn/agent/v1/agent.proto

import type { ResourcesInput as _cairn_agent_v1_ResourcesInput, Resources as _cairn_agent_v1_Resources } from '../../../cairn/agent/v1/Resources.js';
import type { ConditionInput as _cairn_agent_v1_ConditionInput, Condition as _cairn_agent_v1_Condition } from '../../../cairn/agent/v1/Condition.js';
import type { Long } from '@grpc/proto-loader';

export interface HeartbeatInput {
  /**
   * Resources in use on the whole host (disk: the Agent's data directory's file system).
   */
  'usage'?: (_cairn_agent_v1_ResourcesInput | null);
  /**
   * The Node's current conditions as the Agent sees them; an absent condition has cleared.
   */
  'conditions'?: (_cairn_agent_v1_ConditionInput)[];
  /**
   * The Agent's clock when sending, in milliseconds since the Unix epoch (heartbeat lag metric).
   */
  'sentAtUnixMs'?: (number | string | Long);
}

export interface Heartbeat {
  /**
   * Resources in use on the whole host (disk: the Agent's data directory's file system).
   */
  'usage': (_cairn_agent_v1_Resources | null);
  /**
   * The Node's current conditions as the Agent sees them; an absent condition has cleared.
   */
  'conditions': (_cairn_agent_v1_Condition)[];
  /**
   * The Agent's clock when sending, in milliseconds since the Unix epoch (heartbeat lag metric).
   */
  'sentAtUnixMs': (number);
}
