import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { NodeFleet } from '../actors/fleet.js';
import type { AgentSessions } from '../link/session-registry.js';

/** The Agent link's metrics on the Controller's registry: connected Agents, heartbeat lag, Nodes by state. */
export function createLinkMetrics(registry: Registry, fleet: NodeFleet, agents: AgentSessions, now: () => number) {
  new Gauge({
    name: 'cairn_agents_connected',
    help: 'Agents with an open stream.',
    registers: [registry],
    collect() {
      this.set(agents.connectedCount);
    },
  });
  new Gauge({
    name: 'cairn_nodes',
    help: 'Nodes by admin state and connection state.',
    labelNames: ['admin_state', 'connection_state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of fleet.countByState()) this.set({ admin_state: c.adminState, connection_state: c.connectionState }, c.count);
    },
  });
  new Gauge({
    name: 'cairn_node_heartbeat_age_max_seconds',
    help: 'Longest time since the last heartbeat among connected Nodes.',
    registers: [registry],
    collect() {
      const oldest = fleet.oldestHeartbeatMs((nodeId) => agents.isConnected(nodeId));
      this.set(oldest === undefined ? 0 : Math.max(0, (now() - oldest) / 1000));
    },
  });
  const heartbeats = new Counter({ name: 'cairn_agent_heartbeats_total', help: 'Heartbeats received from Agents.', registers: [registry] });
  const lag = new Histogram({
    name: 'cairn_agent_heartbeat_lag_seconds',
    help: 'Time from an Agent sending a heartbeat to the Controller handling it (includes clock skew between hosts).',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'cairn_agent_connections_refused_total',
    help: 'Enrollments and connections refused, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  return {
    heartbeat(sentAtUnixMs: number) {
      heartbeats.inc();
      if (sentAtUnixMs > 0) lag.observe(Math.max(0, now() - sentAtUnixMs) / 1000);
    },
    refused(reason: string) {
      refused.inc({ reason });
    },
  };
}

export type LinkMetrics = ReturnType<typeof createLinkMetrics>;
