// Original file: proto/cairn/agent/v1/agent.proto

import type { DesiredServerInput as _cairn_agent_v1_DesiredServerInput, DesiredServer as _cairn_agent_v1_DesiredServer } from '../../../cairn/agent/v1/DesiredServer.js';
import type { Long } from '@grpc/proto-loader';

/**
 * One server's new desired state: the Agent applies it to the DesiredState it holds. Its revision
 * must be one more than the last applied; otherwise a message went missing, and the Agent ignores
 * changes and asks with RequestFullState until the next DesiredState arrives.
 */
export interface DesiredServerChangeInput {
  /**
   * The next revision of the stream's desired-state sequence (see DesiredState.revision).
   */
  'revision'?: (number | string | Long);
  /**
   * The server's desired state (its generation inside); unset when the server was removed.
   */
  'server'?: (_cairn_agent_v1_DesiredServerInput | null);
  /**
   * Set when the server is not the Node's any more (as if missing from a DesiredState).
   */
  'removedServerId'?: (string);
  /**
   * As DesiredState.lease_term.
   */
  'leaseTerm'?: (number | string | Long);
}

/**
 * One server's new desired state: the Agent applies it to the DesiredState it holds. Its revision
 * must be one more than the last applied; otherwise a message went missing, and the Agent ignores
 * changes and asks with RequestFullState until the next DesiredState arrives.
 */
export interface DesiredServerChange {
  /**
   * The next revision of the stream's desired-state sequence (see DesiredState.revision).
   */
  'revision': (number);
  /**
   * The server's desired state (its generation inside); unset when the server was removed.
   */
  'server': (_cairn_agent_v1_DesiredServer | null);
  /**
   * Set when the server is not the Node's any more (as if missing from a DesiredState).
   */
  'removedServerId': (string);
  /**
   * As DesiredState.lease_term.
   */
  'leaseTerm': (number);
}
