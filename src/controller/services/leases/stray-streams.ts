import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Logger } from '../../../shared/logger.js';
import { nodeResource } from '../../domain/lease-share.js';
import type { AgentSessions } from '../../link/session-registry.js';

/**
 * Ends the stream of any Agent connected here whose Node's lease is not among `held`. Every way a
 * lease goes ends its stream already (`lost`); this says so loudly should one be missed, instead of
 * the Agent staying here for good while its Node's holder shows it UNREACHABLE (the 1,000-fault
 * bench once found such a way: a round's refused claim dropping a lease a hello had just taken).
 */
export function endStrayStreams(agents: AgentSessions, held: readonly string[], logger: Logger): void {
  const holds = new Set(held);
  for (const nodeId of agents.connectedNodeIds().filter((id) => !holds.has(nodeResource(id)))) {
    logger.error({ event: 'stream_without_lease', nodeId }, 'an Agent was connected here without its Node\'s lease; its stream is ended');
    agents.disconnect(nodeId, GrpcStatus.UNAVAILABLE, 'another Controller drives this Node now');
  }
}
