import type { RequestBody, Response } from '../../shared/link/messages.js';
import { AgentRequestError, isAgentRequestError, isNodeUnavailable, NodeUnavailableError } from './errors.js';
import type { RequestOptions } from './node-session.js';
import { jsonLines, type HolderRoutes, type PeerController, type PeerHttp } from './peer-http.js';

/** A request for a Node's Agent, as one Controller hands it to the Node's holder. */
export interface ForwardedRequest {
  nodeId: string;
  body: RequestBody;
  timeoutMs: number;
}

/**
 * The holder's answer lines: each part of a multi-part answer, then exactly one of the last
 * answer, the Agent's refusal, or why there was none (`not_held`: the holder no longer drives the Node).
 */
export type ForwardedAnswer =
  | { part: Response }
  | { done: Response }
  | { refused: { code: string; message: string } }
  | { unavailable: 'not_connected' | 'deadline' | 'closed' | 'not_held' };

export const linkRequestPath = '/internal/v1/link-request';
/** The holder's own deadline ends the request first; this covers the way back. */
const returnMs = 2_000;

/**
 * Agent requests for Nodes another Controller drives: sent to that Controller, which asks its
 * Agent under its own lease term and streams the parts back. The caller sees the same answers and
 * errors as from a local Agent; a holder that cannot be reached is the Node being unavailable.
 */
export class LinkForward {
  constructor(private readonly routes: HolderRoutes, private readonly peers: PeerHttp) {}

  holderOf(nodeId: string): Promise<PeerController | undefined> {
    return this.routes.holderOf(nodeId);
  }

  async ask(holder: PeerController, nodeId: string, body: RequestBody, options: Partial<RequestOptions> & { timeoutMs: number }): Promise<Response> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), options.timeoutMs + returnMs);
    try {
      const request: ForwardedRequest = { nodeId, body, timeoutMs: options.timeoutMs };
      const answer = await this.peers.post(holder, linkRequestPath, 'link-request', request, abort.signal);
      if (answer.statusCode !== 200) {
        answer.resume();
        throw new NodeUnavailableError(nodeId, 'not_connected');
      }
      for await (const line of jsonLines<ForwardedAnswer>(answer)) {
        if ('part' in line) options.onPart?.(line.part);
        else if ('done' in line) return line.done;
        else if ('refused' in line) throw new AgentRequestError(line.refused.code, line.refused.message);
        else throw new NodeUnavailableError(nodeId, line.unavailable === 'not_held' ? 'not_connected' : line.unavailable);
      }
      throw new NodeUnavailableError(nodeId, 'closed');
    } catch (e) {
      if (abort.signal.aborted) throw new NodeUnavailableError(nodeId, 'deadline');
      if (isAgentRequestError(e)) throw e;
      // The holder gone, refusing us or no longer holding the Node: ask the store again next time.
      this.routes.forget(nodeId);
      throw isNodeUnavailable(e) ? e : new NodeUnavailableError(nodeId, 'not_connected');
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }
}
