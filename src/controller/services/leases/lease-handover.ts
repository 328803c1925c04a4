import type { ShareView } from '../../domain/lease-handover.js';
import { nodeResource } from '../../domain/lease-share.js';
import type { LeaseDoc } from '../../store/records.js';
import type { Repositories } from '../../store/repositories.js';

/** The store's leases of one kind, seen as shares: live ones counted per live Controller. */
export function shareView(resources: readonly string[], leases: readonly LeaseDoc[], controllers: readonly LeaseDoc[], now: number, self: { id: string; held: number }): ShareView {
  const known = new Set(resources);
  const live = leases.filter((d) => d.expiresAt > now && known.has(d._id));
  const held = new Map<string, number>();
  for (const lease of live) held.set(lease.holder, (held.get(lease.holder) ?? 0) + 1);
  // What this Controller holds now, claims of this round included.
  held.set(self.id, self.held);
  const liveIds = controllers.filter((d) => d.expiresAt > now).map((d) => d.holder);
  return { total: resources.length, free: resources.length - live.length, live: liveIds.includes(self.id) ? liveIds : [...liveIds, self.id], held };
}

/**
 * What a Controller handing Nodes back remembers: a Node handed back is not claimed again here for
 * a while when its Agent, redialling, reaches this Controller again (a balancer may send it
 * anywhere). It is left for the Controller below its share, which claims it at its next round;
 * the Agent is refused meanwhile and dials again.
 */
export class HandedBack {
  private readonly until = new Map<string, number>();

  constructor(private readonly holdOffMs: number) {}

  note(resource: string, now: number): void {
    this.until.set(resource, now + this.holdOffMs);
  }

  heldOff(resource: string, now: number): boolean {
    for (const [r, until] of this.until) if (until <= now) this.until.delete(r);
    return this.until.has(resource);
  }
}

/** The held Nodes with work under way (a backup queued or running, a workflow, a drain): handing one back would cut it off. */
export async function busyNodes(repos: Pick<Repositories, 'backups' | 'servers' | 'nodes'>, nodeIds: readonly string[]): Promise<Set<string>> {
  const ids = [...nodeIds];
  const [backups, servers, arriving, draining] = await Promise.all([
    repos.backups.find({ nodeId: { $in: ids }, state: { $in: ['RUNNING', 'PENDING'] } }),
    repos.servers.find({ nodeId: { $in: ids }, workflow: { $exists: true } }),
    repos.servers.find({ 'workflow.targetNodeId': { $in: ids } }),
    repos.nodes.find({ _id: { $in: ids }, drain: { $exists: true } }),
  ]);
  return new Set([
    ...backups.map((b) => b.nodeId), ...servers.map((s) => s.nodeId ?? ''), ...arriving.map((s) => s.workflow?.targetNodeId ?? ''), ...draining.map((n) => n._id),
  ].map(nodeResource));
}
