// Original file: proto/cairn/agent/v1/agent.proto

import type { SoftwareInput as _cairn_agent_v1_SoftwareInput, Software as _cairn_agent_v1_Software } from '../../../cairn/agent/v1/Software.js';
import type { ServerResourcesInput as _cairn_agent_v1_ServerResourcesInput, ServerResources as _cairn_agent_v1_ServerResources } from '../../../cairn/agent/v1/ServerResources.js';
import type { DesiredRuntimeStateInput as _cairn_agent_v1_DesiredRuntimeStateInput, DesiredRuntimeState as _cairn_agent_v1_DesiredRuntimeState } from '../../../cairn/agent/v1/DesiredRuntimeState.js';
import type { RestartPolicyInput as _cairn_agent_v1_RestartPolicyInput, RestartPolicy as _cairn_agent_v1_RestartPolicy } from '../../../cairn/agent/v1/RestartPolicy.js';
import type { DesiredPluginInput as _cairn_agent_v1_DesiredPluginInput, DesiredPlugin as _cairn_agent_v1_DesiredPlugin } from '../../../cairn/agent/v1/DesiredPlugin.js';
import type { ServerNetworkInput as _cairn_agent_v1_ServerNetworkInput, ServerNetwork as _cairn_agent_v1_ServerNetwork } from '../../../cairn/agent/v1/ServerNetwork.js';
import type { SleepPolicyInput as _cairn_agent_v1_SleepPolicyInput, SleepPolicy as _cairn_agent_v1_SleepPolicy } from '../../../cairn/agent/v1/SleepPolicy.js';
import type { Long } from '@grpc/proto-loader';

/**
 * One server as the Controller wants it.
 */
export interface DesiredServerInput {
  /**
   * The server's id (UUID).
   */
  'serverId'?: (string);
  /**
   * Increases with every change of the desired spec; echoed back as observed_generation.
   */
  'generation'?: (number | string | Long);
  /**
   * What to install and run.
   */
  'software'?: (_cairn_agent_v1_SoftwareInput | null);
  /**
   * The server's reservation, which also caps its process (e.g. the JVM heap).
   */
  'resources'?: (_cairn_agent_v1_ServerResourcesInput | null);
  /**
   * Host port players join on; 0 until one is assigned.
   */
  'gamePort'?: (number);
  /**
   * RUNNING, STOPPED or DELETED.
   */
  'desiredState'?: (_cairn_agent_v1_DesiredRuntimeStateInput);
  /**
   * Automatic restarts after a crash.
   */
  'restartPolicy'?: (_cairn_agent_v1_RestartPolicyInput | null);
  /**
   * Condition ids the operators acknowledged (e.g. to allow a start after a safety stop).
   */
  'acknowledgedConditionIds'?: (string)[];
  /**
   * Whether the server is a network member; a change applies at the process's next start.
   */
  'inNetwork'?: (boolean);
  /**
   * Bumped by an explicit restart, so the Agent restarts a server whose other fields are unchanged.
   */
  'restartNonce'?: (number | string | Long);
  /**
   * The service template (its JSON file, `templates/<id>.json`) to install and run: the
   * Controller's templates are the truth, so a Node needs no copy of them. The Agent checks it on
   * arrival against the same schema and rules as the Controller's catalog; a new server whose
   * template is empty or refused is not installed and reports why in `install_error`, a server the
   * Agent already runs keeps the template it has.
   */
  'templateJson'?: (string);
  /**
   * The plugin jars installed on the server (catalog and uploaded). The Agent puts them in
   * `plugins/` before every start and removes the ones it placed that are no longer listed; a
   * change here takes effect at the next start and does not change `generation`.
   */
  'plugins'?: (_cairn_agent_v1_DesiredPluginInput)[];
  /**
   * What the network needs of this server: set for the proxy and for members (desired in_network),
   * absent otherwise. Derived from other servers' states, so a change does not change `generation`;
   * the proxy applies new routes at once, without a restart, a member its settings at its next start.
   */
  'network'?: (_cairn_agent_v1_ServerNetworkInput | null);
  /**
   * Where the server's game may connect beyond what the Agent's --game-egress-allow allows, each
   * `CIDR[:PORT]` (IPv4), set by global administrators (`network.egressAllow`). Applied at once to a
   * running game in a network namespace of its own, without a restart; ignored where games share the
   * host's network. An entry the Agent cannot read is skipped.
   */
  'egressAllow'?: (string)[];
  /**
   * Stop the game when nobody plays and answer its port meanwhile (templates with a player count
   * only); absent: never sleeps. The Controller leaves it out while a workflow runs on the server,
   * so a sleeping server is never woken, and a running one never put to sleep, under a workflow.
   */
  'sleep'?: (_cairn_agent_v1_SleepPolicyInput | null);
  /**
   * Bumped by an explicit start of a sleeping server: the Agent wakes it (as a login would).
   */
  'wakeNonce'?: (number | string | Long);
}

/**
 * One server as the Controller wants it.
 */
export interface DesiredServer {
  /**
   * The server's id (UUID).
   */
  'serverId': (string);
  /**
   * Increases with every change of the desired spec; echoed back as observed_generation.
   */
  'generation': (number);
  /**
   * What to install and run.
   */
  'software': (_cairn_agent_v1_Software | null);
  /**
   * The server's reservation, which also caps its process (e.g. the JVM heap).
   */
  'resources': (_cairn_agent_v1_ServerResources | null);
  /**
   * Host port players join on; 0 until one is assigned.
   */
  'gamePort': (number);
  /**
   * RUNNING, STOPPED or DELETED.
   */
  'desiredState': (_cairn_agent_v1_DesiredRuntimeState);
  /**
   * Automatic restarts after a crash.
   */
  'restartPolicy': (_cairn_agent_v1_RestartPolicy | null);
  /**
   * Condition ids the operators acknowledged (e.g. to allow a start after a safety stop).
   */
  'acknowledgedConditionIds': (string)[];
  /**
   * Whether the server is a network member; a change applies at the process's next start.
   */
  'inNetwork': (boolean);
  /**
   * Bumped by an explicit restart, so the Agent restarts a server whose other fields are unchanged.
   */
  'restartNonce': (number);
  /**
   * The service template (its JSON file, `templates/<id>.json`) to install and run: the
   * Controller's templates are the truth, so a Node needs no copy of them. The Agent checks it on
   * arrival against the same schema and rules as the Controller's catalog; a new server whose
   * template is empty or refused is not installed and reports why in `install_error`, a server the
   * Agent already runs keeps the template it has.
   */
  'templateJson': (string);
  /**
   * The plugin jars installed on the server (catalog and uploaded). The Agent puts them in
   * `plugins/` before every start and removes the ones it placed that are no longer listed; a
   * change here takes effect at the next start and does not change `generation`.
   */
  'plugins': (_cairn_agent_v1_DesiredPlugin)[];
  /**
   * What the network needs of this server: set for the proxy and for members (desired in_network),
   * absent otherwise. Derived from other servers' states, so a change does not change `generation`;
   * the proxy applies new routes at once, without a restart, a member its settings at its next start.
   */
  'network': (_cairn_agent_v1_ServerNetwork | null);
  /**
   * Where the server's game may connect beyond what the Agent's --game-egress-allow allows, each
   * `CIDR[:PORT]` (IPv4), set by global administrators (`network.egressAllow`). Applied at once to a
   * running game in a network namespace of its own, without a restart; ignored where games share the
   * host's network. An entry the Agent cannot read is skipped.
   */
  'egressAllow': (string)[];
  /**
   * Stop the game when nobody plays and answer its port meanwhile (templates with a player count
   * only); absent: never sleeps. The Controller leaves it out while a workflow runs on the server,
   * so a sleeping server is never woken, and a running one never put to sleep, under a workflow.
   */
  'sleep': (_cairn_agent_v1_SleepPolicy | null);
  /**
   * Bumped by an explicit start of a sleeping server: the Agent wakes it (as a login would).
   */
  'wakeNonce': (number);
}
