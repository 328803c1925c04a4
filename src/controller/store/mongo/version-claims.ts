import { randomUUID } from 'node:crypto';
import type { Collection as DriverCollection, Document } from 'mongodb';
import type { Clock } from '../../../shared/clock.js';
import type { Version } from '../collection.js';
import { isDuplicate, mapDriverError } from './mongo-documents.js';

/** How long a claim stands before another writer takes its version over (unless the version says otherwise): see `claimed`. */
const staleAfterMs = 10_000;
/** Claims older than this are deleted when a Controller opens the store. */
const trimAfterMs = 60 * 60_000;

/**
 * Writes over one version of a document, one writer at a time, on a server that checks a write's
 * filter apart from the write (FerretDB v1 reads the matching documents, then updates or deletes
 * them by id: two writers over one version can both match, and the later write wipes out the
 * earlier). Each writer first inserts a claim named after the version; an insert against the
 * unique `_id` index is atomic there (one SQLite statement), so of writers racing over a version
 * one wins and the others are refused as if the version had moved on.
 *
 * Once its write returned, a claim is garbage: the document holds a newer version, or held one
 * already when the filter was checked, so a later writer over the old version fails its filter
 * whether or not it can claim. The winner deletes it without waiting; what a failed delete leaves
 * behind goes when a Controller next opens the store (older than an hour). A claim whose write
 * failed stays, since that write may still land. So does one whose writer died (or was stopped)
 * before writing: it would refuse every writer of that version, so one seen standing here for the
 * stale time (10 s, or the version's own: half a lease for leases) is taken over under the next
 * number (`…, 2]`), which one writer wins again. A claim is timed by what it is, not by its name:
 * each carries a token of its own, so one deleted and made again under the same name (its writer
 * was granted it too late and let it go, then another claimed the version) is timed from when it
 * was first seen, never from its predecessor (a takeover at once would write beside its writer).
 *
 * A writer whose claim was granted after half the stale time (counted from asking for it) does not
 * write, and deletes its claim. One whose write was answered after the whole stale time (stopped or
 * starved between the grant and the write, or the store held the write back) may have met a
 * takeover's write in the store, so it is answered as refused: a lease's writer then holds nothing,
 * and the lease runs out. A takeover's claim comes at least a whole stale time after the claim it
 * replaces was seen, which was after it was asked for: a write answered in time was done before.
 */
export class VersionClaims {
  /**
   * When each claim that refused a writer here was first seen, by this process's monotonic clock:
   * judged without comparing the clocks of Controllers, which may differ.
   */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly claims: DriverCollection<Document>,
    private readonly clock: Clock,
    private readonly staleMs = staleAfterMs,
    private readonly monotonicMs = () => performance.now(),
  ) {}

  /** Deletes the claims older than an hour: those whose winner's delete failed, or that died holding them. */
  async trim(): Promise<void> {
    const before = new Date(this.clock.now().getTime() - trimAfterMs).toISOString();
    try {
      await this.claims.deleteMany({ at: { $lt: before } });
    } catch (e) {
      mapDriverError(e);
    }
  }

  /**
   * Runs `write` as the only writer over `version` of a document of `collection`, and answers what
   * it answered; false without running it when another writer holds the version, and false too
   * when the write was answered a stale time or more after the claim was asked for.
   */
  async claimed(collection: string, version: Version, write: () => Promise<boolean>): Promise<boolean> {
    const staleMs = version.claimStaleMs ?? this.staleMs;
    const ids: string[] = [];
    let asked: number;
    for (let n = 1; ; n++) {
      const id = JSON.stringify([collection, version.id, version.field, version.value, n]);
      ids.push(id);
      asked = this.monotonicMs();
      if (await this.claim(id)) {
        if (this.monotonicMs() - asked < staleMs / 2) break;
        // Too late to write: another writer may take this version over soon. Refused as if it had moved on.
        this.forget(ids);
        return false;
      }
      if (!(await this.standsTooLong(id, staleMs))) return false;
    }
    const written = await write();
    // Garbage already (see above): nothing waits for it, and a failed delete leaves it to the trim.
    this.forget(ids);
    return written && this.monotonicMs() - asked < staleMs;
  }

  private forget(ids: string[]): void {
    void this.claims.deleteMany({ _id: { $in: ids as never[] } }).catch(() => undefined);
  }

  private async claim(id: string): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: id as never, at: this.clock.now().toISOString(), token: randomUUID() });
      return true;
    } catch (e) {
      if (isDuplicate(e)) return false;
      mapDriverError(e);
    }
  }

  /**
   * Whether the claim named `id` that refused this writer has stood here for the stale time: the
   * claim as it is now (its token; a claim from before tokens, its time), first seen when.
   */
  private async standsTooLong(id: string, staleMs: number): Promise<boolean> {
    let standing: Document | null;
    try {
      standing = await this.claims.findOne({ _id: id as never });
    } catch (e) {
      mapDriverError(e);
    }
    // Gone since it refused this writer: its writer wrote (the version moved on) or let it go; the next try says which.
    if (!standing) return false;
    const key = `${id}\n${String(standing.token ?? standing.at)}`;
    const now = this.monotonicMs();
    for (const [seenKey, at] of this.seen) if (now - at > 4 * Math.max(staleMs, this.staleMs)) this.seen.delete(seenKey);
    const first = this.seen.get(key) ?? now;
    this.seen.set(key, first);
    return now - first >= staleMs;
  }
}
