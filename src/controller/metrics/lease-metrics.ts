import { Counter, Gauge, type Registry } from 'prom-client';
import type { ClusterMembership, LeaseChange } from '../services/leases/membership.js';

const changes: LeaseChange[] = ['gained', 'lost'];

/** `cairn_leases_held` (Node leases this Controller holds; 0 on the embedded store, which takes none) and `cairn_lease_changes_total{change}`. */
export function registerLeaseMetrics(registry: Registry, membership: Pick<ClusterMembership, 'heldCount' | 'onChange'>): void {
  new Gauge({
    name: 'cairn_leases_held', help: 'Node leases this Controller holds now (the Nodes it drives among several Controllers on one store).', registers: [registry],
    collect() {
      this.set(membership.heldCount);
    },
  });
  const changed = new Counter({ name: 'cairn_lease_changes_total', help: `Node leases gained or lost by this Controller (${changes.join(', ')}).`, labelNames: ['change'] as const, registers: [registry] });
  for (const change of changes) changed.inc({ change }, 0);
  membership.onChange((change) => changed.inc({ change }));
}
