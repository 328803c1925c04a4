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
 * number (`…, 2]`), which one writer wins again. A writer whose claim took half the stale time to
 * be granted (a stopped process, a starved one) does not write at all, and deletes its claim: its
 * write could otherwise come after a takeover. What stays unguarded is a write sent in time that
 * the store itself holds back for longer than the rest of the stale time.
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
   * it answered; false without running it when another writer holds the version.
   */
  async claimed(collection: string, version: Version, write: () => Promise<boolean>): Promise<boolean> {
    const staleMs = version.claimStaleMs ?? this.staleMs;
    const ids: string[] = [];
    for (let n = 1; ; n++) {
      const id = JSON.stringify([collection, version.id, version.field, version.value, n]);
      ids.push(id);
      const asked = this.monotonicMs();
      if (await this.claim(id)) {
        if (this.monotonicMs() - asked < staleMs / 2) break;
        // Too late to write: another writer may take this version over soon. Refused as if it had moved on.
        this.forget(ids);
        return false;
      }
      if (!this.standsTooLong(id, staleMs)) return false;
    }
    const written = await write();
    // Garbage already (see above): nothing waits for it, and a failed delete leaves it to the trim.
    this.forget(ids);
    return written;
  }

  private forget(ids: string[]): void {
    void this.claims.deleteMany({ _id: { $in: ids as never[] } }).catch(() => undefined);
  }

  private async claim(id: string): Promise<boolean> {
    try {
      await this.claims.insertOne({ _id: id as never, at: this.clock.now().toISOString() });
      return true;
    } catch (e) {
      if (isDuplicate(e)) return false;
      mapDriverError(e);
    }
  }

  private standsTooLong(id: string, staleMs: number): boolean {
    const now = this.monotonicMs();
    for (const [seenId, at] of this.seen) if (now - at > 4 * Math.max(staleMs, this.staleMs)) this.seen.delete(seenId);
    const first = this.seen.get(id) ?? now;
    this.seen.set(id, first);
    return now - first >= staleMs;
  }
}
