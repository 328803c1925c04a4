import type { RequestBody, Response } from '../../../shared/link/messages.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { LinkForward } from '../../link/link-forward.js';
import { NodeCalls, nodeUnavailable, type CallOptions } from '../../link/node-calls.js';

/**
 * Node calls for backup work, whose failures are recorded rather than answered: the Agent's own
 * refusal (CHECKSUM_MISMATCH, QUIESCE_FAILED, ...) and the Node's absence stay as they are, so
 * the backup's `error` or the restore's condition says what happened.
 */
export class RawNodeCalls extends NodeCalls {
  constructor(sessions: AgentSessions, forward?: LinkForward) {
    super(sessions, forward);
  }

  /** Through the Node's holder when its Agent is not connected here (a NODE_DIRECTORY backup deleted through another Controller). */
  override async askNode(nodeId: string | undefined, body: RequestBody, options: CallOptions): Promise<Response> {
    if (!nodeId) throw nodeUnavailable('The server is not placed on a Node.');
    return this.send(nodeId, body, options);
  }
}
