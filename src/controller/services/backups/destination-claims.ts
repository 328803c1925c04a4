import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../../shared/logger.js';
import type { Collection } from '../../store/collection.js';
import type { DestinationClaimDoc } from '../../store/destination-claim-records.js';

export const claimTimings = {
  /** How long a backup waits for another Controller's collection of its destination before it fails. */
  writerWaitMs: 15 * 60_000,
  /** How long a collection waits for other Controllers' backups into the destination before it is given up (the garbage stays for the next). */
  collectorWaitMs: 2 * 60_000,
  pollMs: 500,
};

export type ClaimTimings = typeof claimTimings;

const waited = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** Where the claims are kept and who this Controller is among those alive. */
export interface SharedClaims {
  claims: Collection<DestinationClaimDoc>;
  controllerId: string;
  alive: () => Promise<ReadonlySet<string>>;
  now: () => string;
  newId: () => string;
  logger: Logger;
}

/**
 * DestinationLocks across the Controllers sharing one store: a backup writing into a shared
 * destination (GridFS, S3) and a garbage collection of it must not overlap, whichever Controllers
 * run them (a blob a backup stored, or found and skipped, is referenced by no manifest until that
 * backup writes its own, and a collection would remove it). Each side first records its claim in
 * the store, then looks for the other side's claims: of two that overlap, the later one to record
 * its claim sees the earlier, so they never both go ahead. A backup that sees a collection takes
 * its claim back and waits; a collection that sees backups keeps its claim (later backups wait
 * behind it) and waits for them to end, so a busy destination is still collected. Claims of a
 * Controller no longer alive are ignored and removed. On the embedded store (one Controller)
 * there is nobody to claim against: the local locks are all.
 */
export class DestinationClaims {
  /** Claims whose removal failed (the store was away): removed again at the next claim. */
  private readonly unreleased = new Set<string>();

  /** Without `shared` (the embedded store) every claim is granted at once. */
  constructor(private readonly shared?: SharedClaims, private readonly timings: ClaimTimings = claimTimings) {}

  /** `work` writes into the destination (a backup): it starts once no other Controller collects it, or fails after writerWaitMs. */
  async writing<T>(destinationId: string, work: () => Promise<T>): Promise<T> {
    const shared = this.shared;
    if (!shared) return work();
    const deadline = Date.now() + this.timings.writerWaitMs;
    for (;;) {
      const mine = await this.claim(shared, destinationId, 'WRITE');
      let collector: DestinationClaimDoc | undefined;
      try {
        collector = (await this.others(shared, destinationId, 'COLLECT')).at(0);
        if (!collector) return await work();
      } finally {
        await this.release(shared, mine);
      }
      if (Date.now() >= deadline) {
        throw new Error(`another Controller (${collector.controllerId}) has been collecting the destination's unreferenced blobs since ${collector.since}; the backup waited ${waited(this.timings.writerWaitMs)} for it`);
      }
      await delay(this.timings.pollMs);
    }
  }

  /**
   * `work` collects the destination's garbage: once no other Controller writes into it. Undefined
   * when they still did after collectorWaitMs: nothing was collected (the next collection will).
   */
  async collecting<T>(destinationId: string, work: () => Promise<T>): Promise<T | undefined> {
    const shared = this.shared;
    if (!shared) return work();
    const mine = await this.claim(shared, destinationId, 'COLLECT');
    try {
      const deadline = Date.now() + this.timings.collectorWaitMs;
      for (;;) {
        const writers = await this.others(shared, destinationId, 'WRITE');
        if (writers.length === 0) return await work();
        if (Date.now() >= deadline) {
          shared.logger.warn({ event: 'destination_collection_deferred', destinationId, writers: writers.map((w) => w.controllerId) },
            'a destination was not collected: other Controllers kept writing backups into it; its unreferenced blobs stay until the next collection');
          return undefined;
        }
        await delay(this.timings.pollMs);
      }
    } finally {
      await this.release(shared, mine);
    }
  }

  private async claim(shared: SharedClaims, destinationId: string, kind: DestinationClaimDoc['kind']): Promise<string> {
    if (this.unreleased.size > 0) {
      await shared.claims.delete({ _id: { $in: [...this.unreleased] } });
      this.unreleased.clear();
    }
    const claim: DestinationClaimDoc = { _id: shared.newId(), destinationId, kind, controllerId: shared.controllerId, since: shared.now() };
    await shared.claims.insert(claim);
    return claim._id;
  }

  /** The other Controllers' live claims of `kind` on the destination; those of Controllers gone are removed. */
  private async others(shared: SharedClaims, destinationId: string, kind: DestinationClaimDoc['kind']): Promise<DestinationClaimDoc[]> {
    const found = (await shared.claims.find({ destinationId, kind })).filter((c) => c.controllerId !== shared.controllerId);
    if (found.length === 0) return found;
    const alive = await shared.alive();
    const gone = found.filter((c) => !alive.has(c.controllerId)).map((c) => c._id);
    if (gone.length > 0) await shared.claims.delete({ _id: { $in: gone } });
    return found.filter((c) => alive.has(c.controllerId));
  }

  /** A claim that cannot be removed now is removed at the next claim: it must not hold the other side back while this Controller lives. */
  private async release(shared: SharedClaims, id: string): Promise<void> {
    try {
      await shared.claims.delete({ _id: id });
    } catch (err) {
      this.unreleased.add(id);
      shared.logger.warn({ err, claimId: id }, 'a destination claim could not be removed; it is removed again at the next backup or collection');
    }
  }
}
