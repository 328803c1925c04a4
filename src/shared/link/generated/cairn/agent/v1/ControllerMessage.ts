// Original file: proto/cairn/agent/v1/agent.proto

import type { WelcomeInput as _cairn_agent_v1_WelcomeInput, Welcome as _cairn_agent_v1_Welcome } from '../../../cairn/agent/v1/Welcome.js';
import type { DesiredStateInput as _cairn_agent_v1_DesiredStateInput, DesiredState as _cairn_agent_v1_DesiredState } from '../../../cairn/agent/v1/DesiredState.js';
import type { RequestInput as _cairn_agent_v1_RequestInput, Request as _cairn_agent_v1_Request } from '../../../cairn/agent/v1/Request.js';

export interface ControllerMessageInput {
  /**
   * First message after a Connect is accepted.
   */
  'welcome'?: (_cairn_agent_v1_WelcomeInput | null);
  /**
   * The full desired state of every server on the Node; sent after Welcome and on each change.
   */
  'desiredState'?: (_cairn_agent_v1_DesiredStateInput | null);
  /**
   * Something to do now, answered with one or more Responses carrying the same request id.
   */
  'request'?: (_cairn_agent_v1_RequestInput | null);
  'kind'?: "welcome"|"desiredState"|"request";
}

export interface ControllerMessage {
  /**
   * First message after a Connect is accepted.
   */
  'welcome'?: (_cairn_agent_v1_Welcome | null);
  /**
   * The full desired state of every server on the Node; sent after Welcome and on each change.
   */
  'desiredState'?: (_cairn_agent_v1_DesiredState | null);
  /**
   * Something to do now, answered with one or more Responses carrying the same request id.
   */
  'request'?: (_cairn_agent_v1_Request | null);
  'kind'?: "welcome"|"desiredState"|"request";
}
