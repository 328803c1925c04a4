import { fairShare } from './lease-share.js';

/** One kind of leased work (Nodes, or the fleet-wide jobs) as the store shows it at a round. */
export interface ShareView {
  /** Every resource of the kind (enrolled Nodes, the six jobs). */
  total: number;
  /** Those nobody holds a live lease of. */
  free: number;
  /** The live Controllers, this one included. */
  live: readonly string[];
  /** How many live leases of the kind each Controller holds. */
  held: ReadonlyMap<string, number>;
}

/**
 * Whether this Controller hands one of its resources back this round: only while it holds more
 * than its share, and only when the others below their share could not fill up from the free
 * ones alone (otherwise giving one back only moves it around). One per round, so a joining
 * Controller gets its share within a bounded number of rounds and no resource is ever driven by
 * two: the one handed back is dropped here before the store sees it free.
 */
export function shouldHandBack(self: string, view: ShareView): boolean {
  const share = fairShare(view.total, view.live.length);
  if ((view.held.get(self) ?? 0) <= share) return false;
  const othersRoom = view.live.filter((id) => id !== self).reduce((room, id) => room + Math.max(0, share - (view.held.get(id) ?? 0)), 0);
  return othersRoom > view.free;
}

/**
 * Which held resource to hand back: never one with work under way here (a backup, a workflow, a
 * drain: they would be cut off), of the others the first in order, so the choice is the same from
 * one round to the next. Undefined when every one is busy: nothing moves this round.
 */
export function pickToHandBack(held: readonly string[], busy: ReadonlySet<string>): string | undefined {
  return [...held].filter((r) => !busy.has(r)).sort().at(0);
}
