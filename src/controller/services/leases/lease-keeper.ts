import type { Clock } from '../../../shared/clock.js';
import { isSafeTiming, mayDrive, type LeaseTiming } from '../../domain/lease-timing.js';
import type { HolderFacts, Lease, LeaseStore } from '../../store/lease-store.js';

/**
 * One Controller's leases: it claims resources, renews what it holds on every tick, and answers
 * the term to drive a resource under only while its own clock says the lease is safely alive.
 * A lease that fails to renew is dropped at once: its resource is someone else's now.
 */
export class LeaseKeeper {
  private readonly held = new Map<string, Lease>();

  constructor(
    private readonly store: LeaseStore,
    readonly holder: string,
    private readonly address: string,
    private readonly clock: Clock,
    private readonly timing: LeaseTiming,
  ) {
    if (!isSafeTiming(timing)) throw new RangeError(`lease timing ${JSON.stringify(timing)} leaves no room for two renewals before the margin`);
  }

  /** Tries to take (or keep) the resource; answers whether this Controller holds it now. */
  async claim(resource: string, facts?: HolderFacts): Promise<boolean> {
    const before = this.held.get(resource);
    const lease = await this.store.acquire(resource, this.holder, this.address, this.clock.now().getTime(), this.timing.ttlMs, facts);
    if (lease) this.held.set(resource, lease);
    // Only the lease this claim meant to keep: one taken meanwhile by another claim here is that claim's.
    else if (this.held.get(resource) === before) this.held.delete(resource);
    return lease !== undefined;
  }

  /** Renews every held lease in one bulk write; answers the resources lost. */
  async renewAll(): Promise<string[]> {
    const { kept, lost } = await this.store.renewMany(this.holder, [...this.held.values()], this.clock.now().getTime(), this.timing.ttlMs);
    for (const lease of kept) if (this.held.has(lease.resource)) this.held.set(lease.resource, lease);
    for (const resource of lost) this.held.delete(resource);
    return lost;
  }

  /**
   * Drops every lease this Controller may no longer act on by its own clock (a renewal that
   * failed or hung long enough): they are lost at once, whatever the store says later.
   */
  dropUnsafe(): string[] {
    const now = this.clock.now().getTime();
    const dropped = [...this.held.values()].filter((l) => !mayDrive(l.expiresAt, now, this.timing)).map((l) => l.resource);
    for (const resource of dropped) this.held.delete(resource);
    return dropped;
  }

  /** How long, by its own clock, this Controller may still act on the first of its leases to run out (undefined: it holds none). */
  drivableForMs(): number | undefined {
    if (this.held.size === 0) return undefined;
    const now = this.clock.now().getTime();
    return Math.max(0, Math.min(...[...this.held.values()].map((l) => l.expiresAt - this.timing.marginMs - now)));
  }

  /** Forgets one lease without a word to the store (it runs out there); answers whether it was held. */
  forget(resource: string): boolean {
    return this.held.delete(resource);
  }

  /** Forgets every lease without a word to the store (its renewal failed: they are lost at once). */
  forgetAll(): string[] {
    const all = this.holds();
    this.held.clear();
    return all;
  }

  /** The term to act on the resource under, or undefined when this Controller must not act on it. */
  termFor(resource: string): number | undefined {
    const lease = this.held.get(resource);
    return lease && mayDrive(lease.expiresAt, this.clock.now().getTime(), this.timing) ? lease.term : undefined;
  }

  holds(): string[] {
    return [...this.held.keys()];
  }

  /** Hands one lease back (its resource is gone): nobody need wait for it to expire. */
  async release(resource: string): Promise<void> {
    const lease = this.held.get(resource);
    if (!lease) return;
    this.held.delete(resource);
    await this.store.release(lease, this.clock.now().getTime());
  }

  /** Hands every lease back, for a clean shutdown: successors need not wait for expiry. */
  async releaseAll(): Promise<void> {
    for (const lease of this.held.values()) await this.store.release(lease, this.clock.now().getTime());
    this.held.clear();
  }
}
