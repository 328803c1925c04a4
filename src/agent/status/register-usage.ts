import { AgentError } from '../errors.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import { isUsageWindow } from './usage-history.js';

/** The operator's request for a server's usage over a window, answered from what its sampler kept. */
export function registerUsage(link: AgentLinkClient, reconciler: Reconciler): void {
  link.handle('usageHistory', async ({ serverId, window }) => {
    const runner = reconciler.runner(serverId);
    if (!runner) throw new AgentError('NOT_FOUND', 'This Node does not run that server.');
    if (!isUsageWindow(window)) throw new AgentError('INVALID_REQUEST', `No usage window ${JSON.stringify(window)}: 10m, 1h, 6h or 24h.`);
    const { intervalMs, points } = runner.sampler.window(window);
    return {
      payload: 'usageSamples',
      usageSamples: {
        intervalMs,
        samples: points.map((p) => ({
          atUnixMs: p.atMs, cpuMillis: p.cpuMillis, memoryBytes: p.memoryBytes, players: p.players >= 0 ? { online: p.players, max: Math.max(p.playersMax, 0) } : null,
        })),
      },
    };
  });
}
