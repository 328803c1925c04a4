import { Gauge, Histogram, type Registry } from 'prom-client';
import { withDeadline } from '../../shared/deadline.js';
import type { Logger } from '../../shared/logger.js';
import type { ConsoleHub } from '../services/console/console-hub.js';
import type { ReconcileTimer } from '../services/servers/reconcile-timer.js';
import type { ServerCensus } from '../services/servers/census.js';

/** A scrape waits this long for the server records; past it `cairn_servers` is left out of that scrape. */
const censusDeadlineMs = 5000;

export interface ServerMetricSources {
  census: Pick<ServerCensus, 'tally'>;
  reconcile: Pick<ReconcileTimer, 'onReconciled' | 'timing'>;
  console: Pick<ConsoleHub, 'streams'>;
}

/** The servers' metrics: counts by state and open console streams read when scraped, reconcile times as they happen. */
export function registerServerMetrics(registry: Registry, sources: ServerMetricSources, logger: Logger): void {
  new Gauge({
    name: 'cairn_servers',
    help: 'Servers by phase, runtime state reported by the Agent (NONE before any) and convergence, as the API shows them.',
    labelNames: ['phase', 'runtime_state', 'convergence'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const { servers } = await withDeadline(sources.census.tally(), censusDeadlineMs, 'server records for cairn_servers');
        for (const t of servers) this.set({ phase: t.phase, runtime_state: t.runtimeState, convergence: t.convergence }, t.count);
      } catch (err) {
        logger.warn({ err }, 'cairn_servers left out of this scrape: the server records could not be read');
      }
    },
  });
  new Gauge({
    name: 'cairn_players_online',
    help: 'Players online on running servers, by template, as each server\'s last Server List Ping answered (servers that did not answer count none).',
    labelNames: ['template'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const { players } = await withDeadline(sources.census.tally(), censusDeadlineMs, 'server records for cairn_players_online');
        for (const p of players) this.set({ template: p.template }, p.online);
      } catch (err) {
        logger.warn({ err }, 'cairn_players_online left out of this scrape: the server records could not be read');
      }
    },
  });
  const reconcile = new Histogram({
    name: 'cairn_reconcile_duration_seconds',
    help: 'Time from a new desired generation of a server until its Agent reports having observed it.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });
  sources.reconcile.onReconciled((seconds) => reconcile.observe(seconds));
  new Gauge({
    name: 'cairn_reconcile_pending_servers',
    help: 'Servers whose latest desired generation their Agent has not reported yet (timed in memory, at most 10,000).',
    registers: [registry],
    collect() {
      this.set(sources.reconcile.timing);
    },
  });
  new Gauge({
    name: 'cairn_console_streams',
    help: 'Console streams (GET /servers/{serverId}/console) open now.',
    registers: [registry],
    collect() {
      this.set(sources.console.streams);
    },
  });
}
