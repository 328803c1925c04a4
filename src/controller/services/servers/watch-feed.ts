import { randomBytes } from 'node:crypto';
import { processTimers, type ScheduleTimers } from '../../core/schedule-timers.js';
import type { ChangeFeedStore } from '../../store/change-feed.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { FeedReader } from './feed-reader.js';
import { FeedWriter } from './feed-writer.js';
import type { JournalEntry } from './watch-client.js';
import type { ServerWatchStream } from './watch-stream.js';

export interface ServerFeedTimings {
  /** How often the other Controllers' batches are looked for: most of a change's delay to their watchers. */
  pollMs: number;
  /** How often this Controller says it is alive (and how far it has written). */
  renewMs: number;
  /** How long batches and silent writers are kept: a Controller unable to read for longer gives its watchers snapshots. */
  retentionMs: number;
}

/**
 * Two minutes of batches: far longer than any pause a Controller keeps its leases through, and few
 * enough that FerretDB, which reads the whole feed for every lookup, answers one in milliseconds.
 */
export const defaultServerFeedTimings: ServerFeedTimings = { pollMs: 100, renewMs: 5_000, retentionMs: 2 * 60_000 };

/** Trimming the feed is every Controller's job, as often as this many renewals (15 s): the feed holds little more than the retention. */
const renewalsPerTrim = 3;

const changeEvents = new Set(['server', 'server-deleted']);

/** A journal entry as another Controller wrote it, if it is one (a Controller of another version may write what this one does not know). */
function journalEntryOf(item: unknown): JournalEntry | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { teamId, serverId, change } = item as Record<string, unknown>;
  const event = typeof change === 'object' && change !== null ? (change as Record<string, unknown>).event : undefined;
  const ok = typeof teamId === 'string' && typeof serverId === 'string' && typeof event === 'string' && changeEvents.has(event);
  return ok ? (item as JournalEntry) : undefined;
}

/**
 * GET /servers/watch across Controllers on one MongoDB database (MongoDB or FerretDB, which has no
 * change streams): every change this Controller journals is appended to the store's feed, and the
 * feed's batches of the others are journaled here as they are read, so a watcher on any
 * Controller sees every server's changes. What this Controller keeps of a server another one
 * changed (its actor, its observed status) is read from the store again. On the embedded store
 * there is one Controller and no feed: nothing runs.
 */
export class ServerWatchFeed {
  private writerId = randomBytes(8).toString('hex');
  private readonly writer?: FeedWriter;
  private readonly reader?: FeedReader;
  private unsubscribe?: () => void;
  private timers: unknown[] = [];
  private polling?: Promise<void>;
  private stopped = false;
  private failing = false;
  private renewals = 0;

  constructor(
    private readonly feed: ChangeFeedStore | undefined,
    private readonly stream: ServerWatchStream,
    /** What this Controller does of a server another one changed (re-reads it; sends it to its Node when it drives that). */
    private readonly heardRemote: (change: JournalEntry) => Promise<void>,
    private readonly deps: Pick<ServiceDeps, 'clock' | 'logger'>,
    private readonly timings = defaultServerFeedTimings,
    private readonly clockTimers: ScheduleTimers = processTimers,
  ) {
    if (!feed) return;
    this.writer = new FeedWriter(feed, () => this.writerId, () => nowIso(deps), deps.logger);
    this.reader = new FeedReader(feed, () => this.writerId, { items: (items) => this.heard(items), lostTrack: () => this.lostTrack() });
  }

  /** Joins the feed before this Controller changes anything, so no change of its own goes unshared. */
  async start(): Promise<void> {
    if (!this.feed || !this.writer || !this.reader) return;
    await this.feed.join(this.writerId, nowIso(this.deps));
    await this.reader.start();
    const writer = this.writer;
    this.unsubscribe = this.stream.onOwnChange((value) => writer.push(value));
    this.schedule(() => this.poll(), this.timings.pollMs);
    this.schedule(() => this.renew(), this.timings.renewMs);
  }

  /** Stops reading, then writes what is queued (as long as the store answers). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) this.clockTimers.clearTimeout(timer);
    this.unsubscribe?.();
    await this.polling;
    await this.writer?.stop();
  }

  /** Runs `work` every `ms` after the last run ended, until stopped. */
  private schedule(work: () => Promise<void>, ms: number): void {
    const slot = this.timers.length;
    const run = () => {
      if (this.stopped) return;
      void work().finally(() => {
        if (!this.stopped) this.timers[slot] = this.clockTimers.setTimeout(run, ms);
      });
    };
    this.timers.push(this.clockTimers.setTimeout(run, ms));
  }

  private poll(): Promise<void> {
    this.polling = this.reader!.poll().then(
      () => {
        if (this.failing) this.deps.logger.info({ event: 'server_feed_read_resumed' }, 'other Controllers\' server changes are read again');
        this.failing = false;
      },
      (err: unknown) => {
        if (!this.failing) this.deps.logger.warn({ event: 'server_feed_read_failed', err }, 'reading other Controllers\' server changes failed; retrying');
        this.failing = true;
      },
    );
    return this.polling;
  }

  private async renew(): Promise<void> {
    try {
      const at = nowIso(this.deps);
      if (!(await this.feed!.renew(this.writerId, at, this.writer!.seq))) await this.rejoin(at);
      if (++this.renewals % renewalsPerTrim === 0) await this.feed!.trim(new Date(this.deps.clock.now().getTime() - this.timings.retentionMs).toISOString());
    } catch (err) {
      this.deps.logger.warn({ event: 'server_feed_renew_failed', err }, 'renewing this Controller\'s place in the server feed failed; retrying');
    }
  }

  /** Listed no more (the store was out of reach longer than the retention): readers let the old id go, so a new one starts from 1. */
  private async rejoin(at: string): Promise<void> {
    this.writerId = randomBytes(8).toString('hex');
    this.writer!.restart();
    await this.feed!.join(this.writerId, at);
  }

  private heard(items: unknown[]): void {
    for (const item of items) {
      const value = journalEntryOf(item);
      if (!value) continue;
      this.stream.heard(value);
      this.heardRemote(value).catch((err: unknown) => this.deps.logger.error({ err, serverId: value.serverId }, 'taking in a server another Controller changed failed'));
    }
  }

  private lostTrack(): void {
    this.deps.logger.warn({ event: 'server_feed_lost_track' }, 'server changes of other Controllers were missed: open watches get a fresh snapshot');
    this.stream.lostTrack();
  }
}
