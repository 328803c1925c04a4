import type { RequestBody, Response } from '../../../shared/link/messages.js';
import { isAgentRequestError, isNodeUnavailable } from '../../link/errors.js';
import type { LinkForward } from '../../link/link-forward.js';
import { NodeCalls, type CallOptions } from '../../link/node-calls.js';
import type { AgentSessions } from '../../link/session-registry.js';
import { StepFailure } from './step-failure.js';

/**
 * Node calls for a workflow: the same requests as the API's, but a failure is a StepFailure that
 * says which Node failed and how (the Agent's own code, e.g. CHECKSUM_MISMATCH), since it is shown
 * to the operator as the reason of a rollback rather than answered as an HTTP problem. A Node
 * another Controller drives (a migration's target) is asked through that Controller.
 */
export class WorkflowCalls extends NodeCalls {
  constructor(sessions: AgentSessions, private readonly nameOf: (nodeId: string) => string, forward?: LinkForward) {
    super(sessions, forward);
  }

  override async askNode(nodeId: string | undefined, body: RequestBody, options: CallOptions): Promise<Response> {
    if (!nodeId) throw new StepFailure('the server is not placed on a Node');
    try {
      return await this.send(nodeId, body, options);
    } catch (e) {
      throw new StepFailure(this.describe(nodeId, body.body, e));
    }
  }

  /** The request as it goes, failures unworded: for calls that word some failures otherwise (a migration's peer copy). */
  sendRaw(nodeId: string, body: RequestBody, options: CallOptions): Promise<Response> {
    return this.send(nodeId, body, options);
  }

  /** A failure of a request to a Node, in the words a rollback's condition shows. */
  describe(nodeId: string, request: string, e: unknown): string {
    const node = this.nameOf(nodeId);
    if (isNodeUnavailable(e)) {
      return e.reason === 'deadline' ? `Node ${node} did not answer ${request} in time` : `Node ${node} is not connected`;
    }
    if (isAgentRequestError(e)) return `Node ${node} refused: ${e.code} (${e.message})`;
    return `Node ${node}: ${e instanceof Error ? e.message : String(e)}`;
  }
}
