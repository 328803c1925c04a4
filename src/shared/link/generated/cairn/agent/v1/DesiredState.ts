// Original file: proto/cairn/agent/v1/agent.proto

import type { DesiredServerInput as _cairn_agent_v1_DesiredServerInput, DesiredServer as _cairn_agent_v1_DesiredServer } from '../../../cairn/agent/v1/DesiredServer.js';
import type { Long } from '@grpc/proto-loader';

export interface DesiredStateInput {
  /**
   * Every server of the Node; a server missing here is not the Node's any more.
   */
  'servers'?: (_cairn_agent_v1_DesiredServerInput)[];
  /**
   * Counts the desired-state messages (DesiredState and DesiredServerChange) sent on this stream,
   * from 1: each one carries the previous one's revision plus one.
   */
  'revision'?: (number | string | Long);
  /**
   * The term of the sender's lease on this Node (0: a Controller without leases, the embedded
   * store's). The Agent keeps the highest term it has seen and refuses messages of an older one.
   */
  'leaseTerm'?: (number | string | Long);
}

export interface DesiredState {
  /**
   * Every server of the Node; a server missing here is not the Node's any more.
   */
  'servers': (_cairn_agent_v1_DesiredServer)[];
  /**
   * Counts the desired-state messages (DesiredState and DesiredServerChange) sent on this stream,
   * from 1: each one carries the previous one's revision plus one.
   */
  'revision': (number);
  /**
   * The term of the sender's lease on this Node (0: a Controller without leases, the embedded
   * store's). The Agent keeps the highest term it has seen and refuses messages of an older one.
   */
  'leaseTerm': (number);
}
