import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AgentSessions } from './session-registry.js';

/** Why the Controller ends a Node's stream for good. */
export type CutOffReason = 'revoked' | 'deleted';

/** Closes the Node's stream with UNAUTHENTICATED: its credential no longer opens one. */
export const cutOffNode = (agents: AgentSessions, nodeId: string, reason: CutOffReason): void =>
  agents.disconnect(nodeId, GrpcStatus.UNAUTHENTICATED, `the Node has been ${reason}`);
