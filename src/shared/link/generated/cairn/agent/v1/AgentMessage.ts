// Original file: proto/cairn/agent/v1/agent.proto

import type { HelloInput as _cairn_agent_v1_HelloInput, Hello as _cairn_agent_v1_Hello } from '../../../cairn/agent/v1/Hello.js';
import type { HeartbeatInput as _cairn_agent_v1_HeartbeatInput, Heartbeat as _cairn_agent_v1_Heartbeat } from '../../../cairn/agent/v1/Heartbeat.js';
import type { ServerStatusInput as _cairn_agent_v1_ServerStatusInput, ServerStatus as _cairn_agent_v1_ServerStatus } from '../../../cairn/agent/v1/ServerStatus.js';
import type { ConsoleLineInput as _cairn_agent_v1_ConsoleLineInput, ConsoleLine as _cairn_agent_v1_ConsoleLine } from '../../../cairn/agent/v1/ConsoleLine.js';
import type { ResponseInput as _cairn_agent_v1_ResponseInput, Response as _cairn_agent_v1_Response } from '../../../cairn/agent/v1/Response.js';
import type { ConsoleEndInput as _cairn_agent_v1_ConsoleEndInput, ConsoleEnd as _cairn_agent_v1_ConsoleEnd } from '../../../cairn/agent/v1/ConsoleEnd.js';
import type { RequestFullStateInput as _cairn_agent_v1_RequestFullStateInput, RequestFullState as _cairn_agent_v1_RequestFullState } from '../../../cairn/agent/v1/RequestFullState.js';

export interface AgentMessageInput {
  /**
   * First message on every stream.
   */
  'hello'?: (_cairn_agent_v1_HelloInput | null);
  /**
   * Every heartbeat interval (the Controller says how long in Welcome).
   */
  'heartbeat'?: (_cairn_agent_v1_HeartbeatInput | null);
  /**
   * One server's observed state; sent on every change and after each Welcome for every server.
   */
  'serverStatus'?: (_cairn_agent_v1_ServerStatusInput | null);
  /**
   * One line of a server's console output, while a console subscription for it is open.
   */
  'consoleLine'?: (_cairn_agent_v1_ConsoleLineInput | null);
  /**
   * The answer (or one part of the answer) to a Request.
   */
  'response'?: (_cairn_agent_v1_ResponseInput | null);
  /**
   * A subscribed server's console ended (its process exited or its supervisor was lost); the
   * Agent has dropped the subscription and sends no more ConsoleLines for it.
   */
  'consoleEnd'?: (_cairn_agent_v1_ConsoleEndInput | null);
  /**
   * The Agent lost track of its desired state (a DesiredServerChange out of sequence): the
   * Controller answers with a DesiredState.
   */
  'requestFullState'?: (_cairn_agent_v1_RequestFullStateInput | null);
  'kind'?: "hello"|"heartbeat"|"serverStatus"|"consoleLine"|"response"|"consoleEnd"|"requestFullState";
}

export interface AgentMessage {
  /**
   * First message on every stream.
   */
  'hello'?: (_cairn_agent_v1_Hello | null);
  /**
   * Every heartbeat interval (the Controller says how long in Welcome).
   */
  'heartbeat'?: (_cairn_agent_v1_Heartbeat | null);
  /**
   * One server's observed state; sent on every change and after each Welcome for every server.
   */
  'serverStatus'?: (_cairn_agent_v1_ServerStatus | null);
  /**
   * One line of a server's console output, while a console subscription for it is open.
   */
  'consoleLine'?: (_cairn_agent_v1_ConsoleLine | null);
  /**
   * The answer (or one part of the answer) to a Request.
   */
  'response'?: (_cairn_agent_v1_Response | null);
  /**
   * A subscribed server's console ended (its process exited or its supervisor was lost); the
   * Agent has dropped the subscription and sends no more ConsoleLines for it.
   */
  'consoleEnd'?: (_cairn_agent_v1_ConsoleEnd | null);
  /**
   * The Agent lost track of its desired state (a DesiredServerChange out of sequence): the
   * Controller answers with a DesiredState.
   */
  'requestFullState'?: (_cairn_agent_v1_RequestFullState | null);
  'kind'?: "hello"|"heartbeat"|"serverStatus"|"consoleLine"|"response"|"consoleEnd"|"requestFullState";
}
