import type { Logger } from '../../../shared/logger.js';
import { holdsStaleSecret } from '../../domain/network.js';
import type { ServerDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from '../servers/change-hub.js';
import { awaitServer, startedAt } from '../servers/server-waits.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { ForwardingSecret } from './forwarding-secret.js';

/** How long one server of a roll may take to be running again before the roll goes on without it. */
const restartStepMs = 5 * 60_000;

interface Holder {
  serverId: string;
  /** Its process that was running at the rotation (see `ServerDoc.staleSecretProcess`). */
  process: string;
}

const live = (doc: ServerDoc) => doc.desired.state !== 'DELETED' && (doc.observed.runtimeState === 'RUNNING' || doc.observed.runtimeState === 'STARTING');
/** The proxy first (it must speak the new secret before members restarted with it are of use), then the members by name. */
const rollOrder = (a: ServerDoc, b: ServerDoc) => Number(b.kind === 'PROXY') - Number(a.kind === 'PROXY') || a.name.localeCompare(b.name) || a._id.localeCompare(b._id);

/**
 * Rotates the network's forwarding secret and restarts, one at a time, every running server
 * that holds the old one (the proxy and the servers started as members, also those leaving), so
 * the network is never down all at once. A stopped server takes the new secret at its next start
 * anyway. Each waiting server shows RESTART_PENDING until it restarted; one that cannot restart
 * (busy, or not running again within 5 minutes) is left showing it and the roll goes on.
 */
export class SecretRotation {
  private rolling: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: Pick<ServiceDeps, 'repos' | 'clock'>,
    private readonly secret: ForwardingSecret,
    private readonly servers: Pick<ServerAggregate, 'apply' | 'writeFields'>,
    private readonly changes: ServerChangeHub,
    private readonly logger: Logger,
  ) {}

  /** Answers the servers due a restart, in the order the roll takes them; the roll goes on after the answer. */
  async rotate(): Promise<string[]> {
    await this.secret.rotate();
    const docs = await this.deps.repos.servers.find({ $or: [{ kind: 'PROXY' }, { 'observed.startedInNetwork': true }] });
    const holders: Holder[] = docs.filter(live).sort(rollOrder).map((d) => ({ serverId: d._id, process: d.observed.startedAt ?? '' }));
    for (const h of holders) await this.servers.writeFields(h.serverId, () => ({ set: { staleSecretProcess: h.process } }));
    // Rolls never overlap: a second rotation's restarts wait for the first's.
    this.rolling = this.rolling.then(() => this.roll(holders));
    return holders.map((h) => h.serverId);
  }

  private async roll(holders: readonly Holder[]): Promise<void> {
    for (const holder of holders) {
      try {
        await this.restart(holder);
      } catch (err) {
        this.logger.warn({ err, serverId: holder.serverId, event: 'forwarding_secret_restart_failed' }, 'a server holding the rotated forwarding secret did not restart; it takes the new one at its next start');
      }
    }
  }

  private async restart({ serverId, process }: Holder): Promise<void> {
    const doc = await this.deps.repos.servers.findById(serverId);
    if (!doc) return;
    if (holdsStaleSecret({ ...doc.observed, staleSecretProcess: process })) {
      const restarted = await this.servers.apply(doc, { type: 'RESTART', at: nowIso(this.deps) });
      await awaitServer(this.deps, this.changes, serverId, startedAt(restarted.generation), restartStepMs, 'restart with the new forwarding secret');
    }
    await this.servers.writeFields(serverId, (current) => (current.staleSecretProcess === process ? { unset: ['staleSecretProcess'] } : undefined));
  }
}
