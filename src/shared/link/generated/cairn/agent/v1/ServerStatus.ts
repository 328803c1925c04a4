// Original file: proto/cairn/agent/v1/agent.proto

import type { RuntimeStateInput as _cairn_agent_v1_RuntimeStateInput, RuntimeState as _cairn_agent_v1_RuntimeState } from '../../../cairn/agent/v1/RuntimeState.js';
import type { ResourcesInput as _cairn_agent_v1_ResourcesInput, Resources as _cairn_agent_v1_Resources } from '../../../cairn/agent/v1/Resources.js';
import type { ConditionInput as _cairn_agent_v1_ConditionInput, Condition as _cairn_agent_v1_Condition } from '../../../cairn/agent/v1/Condition.js';
import type { PortBindingInput as _cairn_agent_v1_PortBindingInput, PortBinding as _cairn_agent_v1_PortBinding } from '../../../cairn/agent/v1/PortBinding.js';
import type { LastCrashInput as _cairn_agent_v1_LastCrashInput, LastCrash as _cairn_agent_v1_LastCrash } from '../../../cairn/agent/v1/LastCrash.js';
import type { PlayersInput as _cairn_agent_v1_PlayersInput, Players as _cairn_agent_v1_Players } from '../../../cairn/agent/v1/Players.js';
import type { SleepingInput as _cairn_agent_v1_SleepingInput, Sleeping as _cairn_agent_v1_Sleeping } from '../../../cairn/agent/v1/Sleeping.js';
import type { WakeInput as _cairn_agent_v1_WakeInput, Wake as _cairn_agent_v1_Wake } from '../../../cairn/agent/v1/Wake.js';
import type { Long } from '@grpc/proto-loader';

export interface ServerStatusInput {
  /**
   * The server this is about.
   */
  'serverId'?: (string);
  /**
   * The desired-state generation the Agent has applied (it may still be converging towards it).
   */
  'observedGeneration'?: (number | string | Long);
  /**
   * What the server's process is doing.
   */
  'runtimeState'?: (_cairn_agent_v1_RuntimeStateInput);
  /**
   * True once the template's software is installed into the server's `.cairn` directory.
   */
  'installed'?: (boolean);
  /**
   * Resources the server's processes use now.
   */
  'usage'?: (_cairn_agent_v1_ResourcesInput | null);
  /**
   * The server's conditions, e.g. CRASH_LOOP, INSTALL_FAILED, DISK_PRESSURE.
   */
  'conditions'?: (_cairn_agent_v1_ConditionInput)[];
  /**
   * Ports the server has bound on the host.
   */
  'ports'?: (_cairn_agent_v1_PortBindingInput)[];
  /**
   * When the process last started (ISO 8601); empty when not running.
   */
  'startedAt'?: (string);
  /**
   * True when the Agent has removed everything of the server (desired DELETED is done).
   */
  'removed'?: (boolean);
  /**
   * True while a crashed process waits for its automatic restart (within the restart policy).
   */
  'restarting'?: (boolean);
  /**
   * Why installing the software failed for good (e.g. a checksum mismatch); empty otherwise.
   */
  'installError'?: (string);
  /**
   * The network membership the process was started with, while it is starting or running (false
   * otherwise). Membership applies at a start, so only a member started as one is routed to, and a
   * running server whose desired membership differs shows RESTART_PENDING.
   */
  'startedInNetwork'?: (boolean);
  /**
   * The server's last crash since the Agent started; unset when it has not crashed since.
   */
  'lastCrash'?: (_cairn_agent_v1_LastCrashInput | null);
  /**
   * The game port the Agent refused to start the game on because another program on the host
   * holds it (the server's PORT_IN_USE condition says so); 0 when there is none. The Controller
   * then moves the server to a free port of the Node's range.
   */
  'portInUse'?: (number);
  /**
   * The game's process id on the Node while it starts or runs (inside its box: the game itself, not
   * the box); 0 otherwise.
   */
  'pid'?: (number);
  /**
   * Players online as the server's last Server List Ping answered (templates with
   * `status: {protocol: "minecraft-slp"}`, while running); unset when unknown.
   */
  'players'?: (_cairn_agent_v1_PlayersInput | null);
  /**
   * Set while the server sleeps: its game is stopped for want of players and the Agent answers its
   * port (runtime_state STOPPED). Unset otherwise.
   */
  'sleeping'?: (_cairn_agent_v1_SleepingInput | null);
  /**
   * The server's last wake since it last slept on this Agent, kept until it sleeps again; unset when
   * it has not woken. The Controller audits a wake whose time it has not seen (server.woke).
   */
  'lastWake'?: (_cairn_agent_v1_WakeInput | null);
}

export interface ServerStatus {
  /**
   * The server this is about.
   */
  'serverId': (string);
  /**
   * The desired-state generation the Agent has applied (it may still be converging towards it).
   */
  'observedGeneration': (number);
  /**
   * What the server's process is doing.
   */
  'runtimeState': (_cairn_agent_v1_RuntimeState);
  /**
   * True once the template's software is installed into the server's `.cairn` directory.
   */
  'installed': (boolean);
  /**
   * Resources the server's processes use now.
   */
  'usage': (_cairn_agent_v1_Resources | null);
  /**
   * The server's conditions, e.g. CRASH_LOOP, INSTALL_FAILED, DISK_PRESSURE.
   */
  'conditions': (_cairn_agent_v1_Condition)[];
  /**
   * Ports the server has bound on the host.
   */
  'ports': (_cairn_agent_v1_PortBinding)[];
  /**
   * When the process last started (ISO 8601); empty when not running.
   */
  'startedAt': (string);
  /**
   * True when the Agent has removed everything of the server (desired DELETED is done).
   */
  'removed': (boolean);
  /**
   * True while a crashed process waits for its automatic restart (within the restart policy).
   */
  'restarting': (boolean);
  /**
   * Why installing the software failed for good (e.g. a checksum mismatch); empty otherwise.
   */
  'installError': (string);
  /**
   * The network membership the process was started with, while it is starting or running (false
   * otherwise). Membership applies at a start, so only a member started as one is routed to, and a
   * running server whose desired membership differs shows RESTART_PENDING.
   */
  'startedInNetwork': (boolean);
  /**
   * The server's last crash since the Agent started; unset when it has not crashed since.
   */
  'lastCrash': (_cairn_agent_v1_LastCrash | null);
  /**
   * The game port the Agent refused to start the game on because another program on the host
   * holds it (the server's PORT_IN_USE condition says so); 0 when there is none. The Controller
   * then moves the server to a free port of the Node's range.
   */
  'portInUse': (number);
  /**
   * The game's process id on the Node while it starts or runs (inside its box: the game itself, not
   * the box); 0 otherwise.
   */
  'pid': (number);
  /**
   * Players online as the server's last Server List Ping answered (templates with
   * `status: {protocol: "minecraft-slp"}`, while running); unset when unknown.
   */
  'players': (_cairn_agent_v1_Players | null);
  /**
   * Set while the server sleeps: its game is stopped for want of players and the Agent answers its
   * port (runtime_state STOPPED). Unset otherwise.
   */
  'sleeping': (_cairn_agent_v1_Sleeping | null);
  /**
   * The server's last wake since it last slept on this Agent, kept until it sleeps again; unset when
   * it has not woken. The Controller audits a wake whose time it has not seen (server.woke).
   */
  'lastWake': (_cairn_agent_v1_Wake | null);
}
