import { isDuplicateKey, type Collection, type Filter, type Version } from './collection.js';
import type { LeaseDoc } from './records.js';

/** What a Controller's own lease tells the others besides the holder's link address. */
export type HolderFacts = Pick<LeaseDoc, 'httpAddress' | 'startedAt'>;

/** A lease as its holder knows it: what it may drive, under which term, until when. */
export interface Lease {
  resource: string;
  holder: string;
  term: number;
  expiresAt: number;
}

const asLease = (doc: LeaseDoc): Lease => ({ resource: doc._id, holder: doc.holder, term: doc.term, expiresAt: doc.expiresAt });

/**
 * A lease's version is its expiry: every write of it moves the expiry (a renewal forward, a
 * takeover past the old one, a release to the moment it happened), so of the writers that read one
 * version, one only replaces it: a takeover and a late renewal of the same lease never both pass.
 */

/**
 * Leases by compare-and-set on one document per resource, in whichever store is behind the
 * collection: every change is a single-document update whose filter holds what the caller last
 * saw, so of two Controllers racing for a resource exactly one matches. `now` is the caller's
 * clock read before the call, so time spent waiting for the store shortens the lease, never
 * lengthens it.
 */
export class LeaseStore {
  /**
   * `claimStaleMs`: on FerretDB, how long a claim on a lease's version may stand before it is taken
   * over (half a lease: a Controller killed mid-renewal must not hold its Nodes' takeover back for
   * the default 10 s); unset: the store's default.
   */
  constructor(private readonly leases: Collection<LeaseDoc>, private readonly claimStaleMs?: number) {}

  private versionOf(lease: Lease): Version {
    return { id: lease.resource, field: 'expiresAt', value: lease.expiresAt, ...(this.claimStaleMs === undefined ? {} : { claimStaleMs: this.claimStaleMs }) };
  }

  /** Takes the resource when it is free or expired (a new term), or renews it for its holder (same term). */
  async acquire(resource: string, holder: string, holderAddress: string, now: number, ttlMs: number, facts: HolderFacts = {}): Promise<Lease | undefined> {
    const current = await this.leases.findById(resource);
    if (!current) {
      const doc: LeaseDoc = { _id: resource, holder, holderAddress, term: 1, expiresAt: now + ttlMs, ...facts };
      try {
        await this.leases.insert(doc);
        return asLease(doc);
      } catch (e) {
        if (isDuplicateKey(e)) return undefined;
        throw e;
      }
    }
    if (current.holder === holder && current.expiresAt > now) return this.renew(asLease(current), now, ttlMs);
    if (current.expiresAt > now) return undefined;
    const next = { holder, holderAddress, term: current.term + 1, expiresAt: now + ttlMs, ...facts };
    const won = await this.leases.updateVersions([this.versionOf(asLease(current))], next);
    return won === 1 ? { resource, holder, term: next.term, expiresAt: next.expiresAt } : undefined;
  }

  /**
   * Extends the holder's lease. It succeeds even past expiry while nobody took the resource: the
   * term did not change, so nothing was driven under a newer one in between.
   */
  async renew(lease: Lease, now: number, ttlMs: number): Promise<Lease | undefined> {
    const expiresAt = now + ttlMs;
    const held = await this.leases.updateVersions([this.versionOf(lease)], { expiresAt });
    return held === 1 ? { ...lease, expiresAt } : undefined;
  }

  /**
   * Renews many of one holder's leases with one update and one read, whatever their number: a
   * lease matches while its holder is unchanged (a Controller's id is its own, and only it
   * writes new terms under it). Answers the leases kept and the resources lost.
   */
  async renewMany(holder: string, leases: Lease[], now: number, ttlMs: number): Promise<{ kept: Lease[]; lost: string[] }> {
    if (leases.length === 0) return { kept: [], lost: [] };
    const expiresAt = now + ttlMs;
    const ids = leases.map((l) => l.resource);
    await this.leases.updateVersions(leases.map((l) => this.versionOf(l)), { expiresAt });
    const docs = new Map((await this.leases.find({ _id: { $in: ids } })).map((d) => [d._id, d]));
    const kept: Lease[] = [];
    const lost: string[] = [];
    for (const lease of leases) {
      const doc = docs.get(lease.resource);
      if (doc && doc.holder === holder && doc.term === lease.term && doc.expiresAt === expiresAt) kept.push({ ...lease, expiresAt });
      else lost.push(lease.resource);
    }
    return { kept, lost };
  }

  /** Every lease whose resource starts with `prefix` (`node:`, `controller:`), expired ones included. */
  async withPrefix(prefix: string): Promise<LeaseDoc[]> {
    // The character after the prefix's last one bounds the range, so the scan stays on the _id index.
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return this.leases.find({ _id: { $gte: prefix, $lt: end } });
  }

  /** Gives the resource up at once, so another Controller need not wait for expiry. */
  async release(lease: Lease, now: number): Promise<boolean> {
    // Expired as of now rather than at 0: a version value is never written twice (0 would be at every release).
    return (await this.leases.updateVersions([this.versionOf(lease)], { expiresAt: Math.min(now, lease.expiresAt - 1) })) === 1;
  }

  /** Deletes a lease as it was read (one that ran out long ago), unless it was written since. */
  async remove(doc: LeaseDoc): Promise<boolean> {
    return this.leases.deleteVersion(this.versionOf(asLease(doc)));
  }

  /** Who holds the resource and where to reach them (an Agent dialling the wrong Controller is sent there). */
  async holderOf(resource: string, now: number): Promise<{ holder: string; holderAddress: string; term: number } | undefined> {
    const doc = await this.leases.findById(resource);
    return doc && doc.expiresAt > now ? { holder: doc.holder, holderAddress: doc.holderAddress, term: doc.term } : undefined;
  }
}

/** The field a fenced write stamps on the documents it changes. */
export const fenceField = 'fenceTerm';

/**
 * A guard for writes made on behalf of a lease: the filter matches only documents no holder with a
 * newer term has written, and the write stamps its own term. A Controller that lost its lease
 * (and does not know yet) therefore changes nothing once the new holder has written.
 */
export function fenced(term: number): { filter: Filter; set: { [fenceField]: number } } {
  return {
    filter: { $or: [{ [fenceField]: { $exists: false } }, { [fenceField]: { $lte: term } }] },
    set: { [fenceField]: term },
  };
}
