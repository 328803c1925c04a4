import type { Caller } from '../../core/caller.js';
import { DomainError } from '../../core/errors.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { ServerAggregate } from './aggregate.js';
import type { UsageWindowName } from '../../domain/usage.js';

/**
 * A server's usage over time, asked of the Agent of its Node, which keeps it; the Controller keeps
 * none (a fleet's samples would be most of its store, and an Agent has them at hand).
 */
export class ServerUsageService {
  constructor(private readonly servers: ServerAggregate, private readonly calls: NodeCalls) {}

  async of(caller: Caller, serverId: string, window: UsageWindowName) {
    const doc = await this.servers.load(caller, serverId, 'servers.read');
    const response = await this.calls.ask(doc, { body: 'usageHistory', usageHistory: { serverId, window } }, { timeoutMs: agentDeadlines.quick });
    if (response.payload !== 'usageSamples') throw new DomainError('internal', 'The Agent answered something else than usage samples.');
    const { samples, intervalMs } = response.usageSamples;
    return {
      window,
      intervalSeconds: Math.max(1, Math.round(intervalMs / 1000)),
      items: samples.map((s) => ({
        at: new Date(Number(s.atUnixMs)).toISOString(),
        cpuMillis: Number(s.cpuMillis),
        memoryBytes: Number(s.memoryBytes),
        ...(s.players ? { playersOnline: s.players.online } : {}),
      })),
    };
  }
}
