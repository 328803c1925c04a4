import { status } from '@grpc/grpc-js';
import { StoreUnavailableError } from '../core/store-unavailable.js';
import { ConnectRefusedError } from './errors.js';

/** How an Agent's Connect whose credential check threw is answered, counted and logged. */
export interface ConnectRefusal {
  code: status;
  /** The label of `cairn_agent_connections_refused_total`, and the words after "connection refused: ". */
  reason: string;
  /** Only a fault of this Controller is logged as an error; a refused credential or a store outage is expected. */
  fault: boolean;
}

/**
 * Only a credential the Controller read and found wanting is UNAUTHENTICATED: the Agent takes
 * that to mean revoked or superseded and slows its redials to the 30 s ceiling. A store that does
 * not answer says nothing about the credential, so it is UNAVAILABLE, which the Agent retries on
 * its ordinary backoff: its Node is driven again soon after the store is back, not 15–30 s later.
 */
export function connectRefusalOf(error: unknown): ConnectRefusal {
  if (error instanceof ConnectRefusedError) return { code: status.UNAUTHENTICATED, reason: error.reason, fault: false };
  if (error instanceof StoreUnavailableError) return { code: status.UNAVAILABLE, reason: 'store_unavailable', fault: false };
  return { code: status.INTERNAL, reason: 'internal', fault: true };
}
