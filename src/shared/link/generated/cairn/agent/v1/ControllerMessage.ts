// Original file: proto/cairn/agent/v1/agent.proto

import type { WelcomeInput as _cairn_agent_v1_WelcomeInput, Welcome as _cairn_agent_v1_Welcome } from '../../../cairn/agent/v1/Welcome.js';
import type { DesiredStateInput as _cairn_agent_v1_DesiredStateInput, DesiredState as _cairn_agent_v1_DesiredState } from '../../../cairn/agent/v1/DesiredState.js';
import type { RequestInput as _cairn_agent_v1_RequestInput, Request as _cairn_agent_v1_Request } from '../../../cairn/agent/v1/Request.js';
import type { DesiredServerChangeInput as _cairn_agent_v1_DesiredServerChangeInput, DesiredServerChange as _cairn_agent_v1_DesiredServerChange } from '../../../cairn/agent/v1/DesiredServerChange.js';
import type { KeepaliveInput as _cairn_agent_v1_KeepaliveInput, Keepalive as _cairn_agent_v1_Keepalive } from '../../../cairn/agent/v1/Keepalive.js';

export interface ControllerMessageInput {
  /**
   * First message after a Connect is accepted.
   */
  'welcome'?: (_cairn_agent_v1_WelcomeInput | null);
  /**
   * The full desired state of every server on the Node; sent after Welcome, on RequestFullState,
   * and on each change to an Agent that does not accept DesiredServerChange.
   */
  'desiredState'?: (_cairn_agent_v1_DesiredStateInput | null);
  /**
   * Something to do now, answered with one or more Responses carrying the same request id.
   */
  'request'?: (_cairn_agent_v1_RequestInput | null);
  /**
   * One server's desired state changed (to an Agent that accepts changes; see Hello).
   */
  'desiredServerChange'?: (_cairn_agent_v1_DesiredServerChangeInput | null);
  /**
   * Nothing else was said for a while (see Welcome.silence_limit_ms): the Controller is alive.
   */
  'keepalive'?: (_cairn_agent_v1_KeepaliveInput | null);
  'kind'?: "welcome"|"desiredState"|"request"|"desiredServerChange"|"keepalive";
}

export interface ControllerMessage {
  /**
   * First message after a Connect is accepted.
   */
  'welcome'?: (_cairn_agent_v1_Welcome | null);
  /**
   * The full desired state of every server on the Node; sent after Welcome, on RequestFullState,
   * and on each change to an Agent that does not accept DesiredServerChange.
   */
  'desiredState'?: (_cairn_agent_v1_DesiredState | null);
  /**
   * Something to do now, answered with one or more Responses carrying the same request id.
   */
  'request'?: (_cairn_agent_v1_Request | null);
  /**
   * One server's desired state changed (to an Agent that accepts changes; see Hello).
   */
  'desiredServerChange'?: (_cairn_agent_v1_DesiredServerChange | null);
  /**
   * Nothing else was said for a while (see Welcome.silence_limit_ms): the Controller is alive.
   */
  'keepalive'?: (_cairn_agent_v1_Keepalive | null);
  'kind'?: "welcome"|"desiredState"|"request"|"desiredServerChange"|"keepalive";
}
