// Original file: proto/cairn/agent/v1/agent.proto

import type { HostFactsInput as _cairn_agent_v1_HostFactsInput, HostFacts as _cairn_agent_v1_HostFacts } from '../../../cairn/agent/v1/HostFacts.js';
import type { ResourcesInput as _cairn_agent_v1_ResourcesInput, Resources as _cairn_agent_v1_Resources } from '../../../cairn/agent/v1/Resources.js';
import type { PortRangeInput as _cairn_agent_v1_PortRangeInput, PortRange as _cairn_agent_v1_PortRange } from '../../../cairn/agent/v1/PortRange.js';
import type { IsolationInput as _cairn_agent_v1_IsolationInput, Isolation as _cairn_agent_v1_Isolation } from '../../../cairn/agent/v1/Isolation.js';
import type { RuntimeInput as _cairn_agent_v1_RuntimeInput, Runtime as _cairn_agent_v1_Runtime } from '../../../cairn/agent/v1/Runtime.js';

export interface HelloInput {
  /**
   * The Agent's version.
   */
  'agentVersion'?: (string);
  /**
   * Version of this protocol the Agent speaks, currently 1.
   */
  'protocolVersion'?: (number);
  /**
   * Facts about the host.
   */
  'host'?: (_cairn_agent_v1_HostFactsInput | null);
  /**
   * What servers on this Node may reserve in total.
   */
  'allocatable'?: (_cairn_agent_v1_ResourcesInput | null);
  /**
   * Ids of the servers the Agent currently has on disk or running (so the Controller can spot
   * strays after a restore or a lost Controller database).
   */
  'knownServerIds'?: (string)[];
  /**
   * The host ports the Controller may give this Node's game servers (`cairn-agent --game-ports`,
   * within 1024..65535). Unset (an Agent older than this field) means 25565-26564.
   */
  'gamePorts'?: (_cairn_agent_v1_PortRangeInput | null);
  /**
   * True when the Agent applies DesiredServerChange messages; an older Agent (false) gets a full
   * DesiredState on every change instead.
   */
  'acceptsDesiredChanges'?: (boolean);
  /**
   * What this Node enforces on its games (`cairn-agent --isolation`); unset from an Agent older than
   * this field, which boxes nothing.
   */
  'isolation'?: (_cairn_agent_v1_IsolationInput | null);
  /**
   * The runtimes games can run on here (the Java installations the Agent found, contract:
   * "Runtimes"); empty from an Agent older than this field.
   */
  'runtimes'?: (_cairn_agent_v1_RuntimeInput)[];
}

export interface Hello {
  /**
   * The Agent's version.
   */
  'agentVersion': (string);
  /**
   * Version of this protocol the Agent speaks, currently 1.
   */
  'protocolVersion': (number);
  /**
   * Facts about the host.
   */
  'host': (_cairn_agent_v1_HostFacts | null);
  /**
   * What servers on this Node may reserve in total.
   */
  'allocatable': (_cairn_agent_v1_Resources | null);
  /**
   * Ids of the servers the Agent currently has on disk or running (so the Controller can spot
   * strays after a restore or a lost Controller database).
   */
  'knownServerIds': (string)[];
  /**
   * The host ports the Controller may give this Node's game servers (`cairn-agent --game-ports`,
   * within 1024..65535). Unset (an Agent older than this field) means 25565-26564.
   */
  'gamePorts': (_cairn_agent_v1_PortRange | null);
  /**
   * True when the Agent applies DesiredServerChange messages; an older Agent (false) gets a full
   * DesiredState on every change instead.
   */
  'acceptsDesiredChanges': (boolean);
  /**
   * What this Node enforces on its games (`cairn-agent --isolation`); unset from an Agent older than
   * this field, which boxes nothing.
   */
  'isolation': (_cairn_agent_v1_Isolation | null);
  /**
   * The runtimes games can run on here (the Java installations the Agent found, contract:
   * "Runtimes"); empty from an Agent older than this field.
   */
  'runtimes': (_cairn_agent_v1_Runtime)[];
}
