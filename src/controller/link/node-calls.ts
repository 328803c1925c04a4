import type { RequestBody, Response } from '../../shared/link/messages.js';
import { DomainError, type ErrorCode } from '../core/errors.js';
import { isAgentRequestError, isNodeUnavailable } from './errors.js';
import type { RequestOptions } from './node-session.js';
import type { AgentSessions } from './session-registry.js';
import type { LinkForward } from './link-forward.js';
import type { ServerDoc } from '../store/records.js';

/** Deadlines of the operator's requests to Agents: short for quick ones, longer for disk work. */
export const agentDeadlines = {
  quick: 5_000,
  disk: 30_000,
} as const;

/** The Agent's refusal codes (proto ResponseError.code) and the API's error code for each. */
const agentCodes: Partial<Record<string, ErrorCode>> = {
  NOT_FOUND: 'not_found',
  INVALID_PATH: 'invalid_request',
  INVALID_REQUEST: 'invalid_request',
  NOT_A_DIRECTORY: 'invalid_request',
  NOT_A_FILE: 'invalid_request',
  INVALID_ARCHIVE: 'invalid_request',
  READ_ONLY: 'read_only',
  SERVER_NOT_RUNNING: 'server_not_running',
  ALREADY_EXISTS: 'conflict',
  INVALID_PROPERTIES: 'conflict',
  TOO_LARGE: 'too_large',
  MANAGED_PROPERTY: 'managed_property',
  // Snapshots and stages: the server runs where it must not, a file is not what its sha256 says,
  // or the game did not finish saving in time; each is a state to resolve, not a bad request.
  SERVER_RUNNING: 'conflict',
  CHECKSUM_MISMATCH: 'conflict',
  QUIESCE_FAILED: 'conflict',
  BUSY: 'conflict',
  PERMISSION_DENIED: 'conflict',
  NO_SPACE: 'insufficient_storage',
  // A write the server's disk limit (resources.diskBytes) has no room for.
  DISK_QUOTA_EXCEEDED: 'insufficient_storage',
  UPLOAD_OFFSET_MISMATCH: 'upload_offset_mismatch',
};

export const nodeUnavailable = (detail = 'The server\'s Node is not connected or did not answer in time.') => new DomainError('node_unavailable', detail);

/**
 * The one place where an Agent's answer becomes an API error: not connected, closed or past its
 * deadline is `node_unavailable`; an Agent refusal maps by its code; anything else is ours (500).
 */
export function errorFromAgent(error: unknown): unknown {
  if (isNodeUnavailable(error)) return nodeUnavailable(error.reason === 'deadline' ? 'The server\'s Node did not answer in time.' : 'The server\'s Node is not connected.');
  if (!isAgentRequestError(error)) return error;
  if (error.code === 'UNSUPPORTED') return nodeUnavailable('The server\'s Agent does not support this request; upgrade the Agent.');
  const code = agentCodes[error.code];
  return code ? new DomainError(code, error.message) : new DomainError('internal', 'The Agent failed to carry out the request.');
}

/** Every call has a deadline: the Agent is told it, and the Controller stops waiting then. */
export type CallOptions = Partial<RequestOptions> & { timeoutMs: number };

/**
 * Requests about one server to the Agent of its Node, with API errors: through this Controller's
 * link when the Agent is connected here, else through the Controller that drives the Node.
 */
export class NodeCalls {
  constructor(private readonly agents: AgentSessions, private readonly forward?: LinkForward) {}

  ask(server: ServerDoc, body: RequestBody, options: CallOptions): Promise<Response> {
    return this.askNode(server.nodeId, body, options);
  }

  async askNode(nodeId: string | undefined, body: RequestBody, options: CallOptions): Promise<Response> {
    if (!nodeId) throw nodeUnavailable('The server is not placed on a Node.');
    try {
      return await this.send(nodeId, body, options);
    } catch (e) {
      throw errorFromAgent(e);
    }
  }

  /** The request as it goes, here or through the holder; its failures are the link's own (errors.ts), for a subclass to word. */
  protected async send(nodeId: string, body: RequestBody, options: CallOptions): Promise<Response> {
    const holder = this.agents.isConnected(nodeId) ? undefined : await this.forward?.holderOf(nodeId);
    if (holder) return this.forward!.ask(holder, nodeId, body, options);
    return this.agents.request(nodeId, body, options);
  }
}
