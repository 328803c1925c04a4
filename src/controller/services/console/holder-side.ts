import type { NodeOwnership } from '../../core/node-ownership.js';
import { DomainError } from '../../core/errors.js';
import { isAgentRequestError, isNodeUnavailable } from '../../link/errors.js';
import type { ForwardedAnswer, ForwardedRequest } from '../../link/link-forward.js';
import { nodeUnavailable } from '../../link/node-calls.js';
import type { AgentSessions } from '../../link/session-registry.js';
import type { Repositories } from '../../store/repositories.js';
import type { HoldingStream } from '../identity/stream-guard.js';
import type { ConsoleHub, ConsoleWatch } from './console-hub.js';
import type { ForwardedConsole } from './remote-console.js';

/**
 * What the Controller driving a Node does for the others: asks its Agent on their behalf and
 * opens console watchers for their callers. They checked the caller's permissions and audit the
 * request; here only the lease decides (a Node not driven here is answered as such, never asked).
 */
export class HolderSide {
  constructor(
    private readonly agents: AgentSessions,
    private readonly ownership: NodeOwnership,
    private readonly hub: ConsoleHub,
    private readonly repos: Repositories,
  ) {}

  /** Every outcome is an answer line; only a fault of this Controller's own throws. */
  async ask(request: ForwardedRequest, send: (answer: ForwardedAnswer) => void): Promise<void> {
    if (this.ownership.termFor(request.nodeId) === undefined) return send({ unavailable: 'not_held' });
    try {
      const done = await this.agents.request(request.nodeId, request.body, { timeoutMs: request.timeoutMs, onPart: (part) => send({ part }) });
      send({ done });
    } catch (e) {
      if (isAgentRequestError(e)) send({ refused: { code: e.code, message: e.message } });
      else if (isNodeUnavailable(e)) send({ unavailable: e.reason });
      else throw e;
    }
  }

  /** A watcher of this Controller's console hub, counted against the caller's limits here like a local one. */
  async watch(request: ForwardedConsole): Promise<ConsoleWatch & HoldingStream> {
    const doc = await this.repos.servers.findById(request.serverId);
    if (!doc) throw new DomainError('not_found', 'No such server.');
    if (!doc.nodeId || this.ownership.termFor(doc.nodeId) === undefined) throw nodeUnavailable('The server\'s Node is not driven by the Controller asked.');
    return this.hub.watch(doc, request.tail, request.userId);
  }
}
