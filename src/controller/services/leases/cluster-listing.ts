import type { ClusterController } from '../../schemas/cluster.js';
import type { LeaseDoc } from '../../store/records.js';

/**
 * `GET /cluster`'s Controllers from the leases as read: each live `controller:` lease with the Nodes
 * and fleet-wide jobs whose live leases it holds; last seen a lease time before its expiry.
 */
export function clusterControllers(leases: { controllers: LeaseDoc[]; nodes: LeaseDoc[]; jobs: LeaseDoc[] }, now: number, ttlMs: number): ClusterController[] {
  const live = (d: LeaseDoc) => d.expiresAt > now;
  const driven = new Map<string, number>();
  for (const lease of leases.nodes.filter(live)) driven.set(lease.holder, (driven.get(lease.holder) ?? 0) + 1);
  const jobs = new Map<string, string[]>();
  for (const lease of leases.jobs.filter(live).sort((a, b) => a._id.localeCompare(b._id))) jobs.set(lease.holder, [...(jobs.get(lease.holder) ?? []), lease._id.slice('fleet:'.length)]);
  return leases.controllers.filter(live).sort((a, b) => a.holder.localeCompare(b.holder)).map((d) => ({
    id: d.holder, address: d.holderAddress, ...(d.httpAddress ? { httpAddress: d.httpAddress } : {}),
    startedAt: d.startedAt ?? new Date(0).toISOString(),
    lastSeenAt: new Date(d.expiresAt - ttlMs).toISOString(),
    nodes: driven.get(d.holder) ?? 0, jobs: jobs.get(d.holder) ?? [],
  }));
}
