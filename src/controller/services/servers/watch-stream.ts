import { randomBytes } from 'node:crypto';
import { tooManyAttempts } from '../../core/errors.js';
import type { Caller } from '../../core/caller.js';
import type { ServerDoc } from '../../store/records.js';
import type { Access } from '../identity/access.js';
import type { AccessEvents } from '../identity/access-events.js';
import type { ServiceDeps } from '../deps.js';
import type { ServerChangeHub } from './change-hub.js';
import type { ServerListItemView } from './views.js';
import { ServerWatcher, type JournalEntry, type ServerWatch } from './watch-client.js';
import type { StreamGuards } from '../identity/stream-guard.js';
import { WatchRing, type RingLimits } from './watch-ring.js';
import { GenerationOrder, type OrderedChange } from './generation-order.js';
import { processTimers, type ScheduleTimers } from '../../core/schedule-timers.js';

/** Watch streams one user may hold open at once (every credential of the user together). */
export const maxWatchStreamsPerUser = 8;
/** A watching client's caller as last re-checked, its answers per team since then, and how to stop its re-checks. */
interface WatchedCaller {
  caller: Caller;
  checked: Map<string, Promise<boolean>>;
  unguard?: () => void;
}

/** Seconds a refused watch is told to wait. */
export const watchRetryAfterSeconds = 5;

/** How far back a reconnecting watch can resume: the last 10,000 changes of the last 5 minutes. */
export const watchRingLimits: RingLimits = { maxEntries: 10_000, maxAgeMs: 5 * 60_000 };

const ordered = (value: JournalEntry): OrderedChange<JournalEntry> => ({
  serverId: value.serverId,
  ...(value.change.event === 'server' ? { generation: value.change.data.generation, at: value.at } : {}),
  value,
});

/** Whether the record read is a later state than the journal's entry (a later generation, or a later write of it). */
const isNewer = (doc: ServerDoc, entry: { generation: number; at?: string }) =>
  doc.generation > entry.generation || (doc.generation === entry.generation && entry.at !== undefined && doc.updatedAt > entry.at);

/**
 * GET /servers/watch: every server change, numbered and kept in a bounded ring, fanned out to
 * the clients that may read it. Event ids are `<epoch>-<seq>`: the epoch is this Controller
 * process's, `seq` grows with every change. A client opens with a snapshot of the servers it may
 * read (ids `<epoch>-<seq>.<n>`, then `synced`); one that reconnects with `Last-Event-ID` gets the
 * changes it missed, or a fresh snapshot when the ring no longer holds them, or the id is from
 * another process, malformed, or a snapshot item's.
 *
 * Each client re-checks its caller's access on every change of it and every minute: one whose
 * credential or user is gone gets `end {reason: "access_revoked"}`; one that may no longer read some
 * servers is told they are gone. A client resuming from before such a change gets a fresh snapshot,
 * so it forgets what it may no longer read.
 */
export class ServerWatchStream {
  readonly epoch = randomBytes(4).toString('hex');
  private readonly ring: WatchRing<JournalEntry>;
  private readonly watchers = new Set<ServerWatcher>();
  private readonly ownListeners = new Set<(value: JournalEntry) => void>();
  /** Per user, the last change number before its access last changed. */
  private readonly accessChangedAt = new Map<string, number>();
  /** Per user, the streams open or opening (taken before the first await, so a burst cannot overshoot). */
  private readonly openPerUser = new Map<string, number>();
  /** Each server's changes in generation order, whichever Controller made them. */
  private readonly order: GenerationOrder<JournalEntry>;

  constructor(
    hub: ServerChangeHub,
    private readonly view: (doc: ServerDoc) => ServerListItemView,
    private readonly access: Access,
    private readonly deps: ServiceDeps,
    private readonly guards: StreamGuards,
    accessEvents: AccessEvents,
    limits = watchRingLimits,
    timers: ScheduleTimers = processTimers,
  ) {
    this.ring = new WatchRing(limits, () => deps.clock.now().getTime());
    this.order = new GenerationOrder((value) => this.journal(value), timers);
    accessEvents.subscribeAll(({ userId }) => this.accessChangedAt.set(userId, this.ring.head));
    hub.subscribe(({ doc, deleted }) => {
      const value: JournalEntry = {
        teamId: doc.teamId, serverId: doc._id,
        // The state as it is now: later clients resuming get what this moment looked like.
        change: deleted ? { event: 'server-deleted', data: { id: doc._id } } : { event: 'server', data: this.view(doc) },
        ...(deleted ? {} : { at: doc.updatedAt }),
        ...(doc.workflow?.removeOnNodeId ? { removeOnNodeId: doc.workflow.removeOnNodeId } : {}),
      };
      this.order.own(ordered(value));
      for (const listener of this.ownListeners) listener(value);
    });
  }

  /** Hears every change this Controller makes, as journaled (the store's feed shares them with other Controllers). */
  onOwnChange(listener: (value: JournalEntry) => void): () => void {
    this.ownListeners.add(listener);
    return () => this.ownListeners.delete(listener);
  }

  /** A change another Controller made, heard through the store: numbered and sent as this Controller's own are. */
  heard(value: JournalEntry): void {
    this.order.heard(ordered(value));
  }

  /**
   * Some changes of other Controllers were missed: every id handed out so far resumes with a fresh
   * snapshot, and every open client is closed after what it was sent, to reconnect and get one.
   */
  lostTrack(): void {
    this.order.lostTrack();
    this.ring.forgetAll();
    for (const watcher of this.watchers) watcher.resync();
  }

  private journal(value: JournalEntry): void {
    const entry = this.ring.append(value);
    for (const watcher of this.watchers) watcher.change(entry);
  }

  /** Opens one client's watch; reads (and may fail) before anything is sent. Past the user's cap: 429. */
  async open(caller: Caller, lastEventId?: string): Promise<ServerWatch> {
    const release = this.takeSlot(caller.user._id);
    try {
      return await this.openHolding(caller, release, lastEventId);
    } catch (e) {
      release();
      throw e;
    }
  }

  /** Streams of the user open now (or opening). */
  openStreams(userId: string): number {
    return this.openPerUser.get(userId) ?? 0;
  }

  /** Takes one of the user's stream slots; the function gives it back (once, however often called). */
  private takeSlot(userId: string): () => void {
    const held = this.openPerUser.get(userId) ?? 0;
    if (held >= maxWatchStreamsPerUser) throw tooManyAttempts(watchRetryAfterSeconds);
    this.openPerUser.set(userId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.openPerUser.get(userId) ?? 1) - 1;
      if (now > 0) this.openPerUser.set(userId, now);
      else this.openPerUser.delete(userId);
    };
  }

  private async openHolding(caller: Caller, release: () => void, lastEventId?: string): Promise<ServerWatch> {
    const resumeFrom = this.seqOf(lastEventId);
    const stale = resumeFrom === undefined || resumeFrom <= (this.accessChangedAt.get(caller.user._id) ?? -1);
    const missed = stale ? undefined : this.ring.after(resumeFrom);
    if (!missed) return this.snapshot(caller, release);
    const { watcher, current } = this.watcher(caller, release);
    for (const entry of missed) watcher.change(entry);
    watcher.synced(false, this.ring.reserve());
    return this.watch(watcher, current);
  }

  private async snapshot(caller: Caller, release: () => void): Promise<ServerWatch> {
    const before = this.ring.head;
    const teams = await this.access.teamsWith(caller, 'servers.read');
    const docs = await this.deps.repos.servers.find(teams ? { teamId: { $in: teams } } : {});
    // From here nothing awaits: the snapshot, its `synced` and the subscription are one moment.
    const readable = teams ? new Set(teams) : undefined;
    const latest = new Map<string, JournalEntry>();
    // A change during the read may or may not be in what was read: its journal entry is the newer truth.
    for (const { value } of this.ring.after(before) ?? []) if (!readable || readable.has(value.teamId)) latest.set(value.serverId, value);
    const items = new Map<string, ServerListItemView>();
    for (const doc of docs) {
      // What another Controller wrote may be read here before the store's feed brings it: the journal
      // must not send this client the feed's older states after it (nor anyone, once they are older).
      this.order.atLeast(doc._id, { generation: doc.generation, at: doc.updatedAt });
      const entry = latest.get(doc._id);
      if (!entry || (entry.change.event === 'server' && isNewer(doc, { generation: entry.change.data.generation, at: entry.at }))) {
        latest.delete(doc._id);
        items.set(doc._id, this.view(doc));
      }
    }
    for (const [id, entry] of latest) if (entry.change.event === 'server') items.set(id, entry.change.data);
    const at = this.ring.head;
    const { watcher, current } = this.watcher(caller, release);
    // Ids are time-ordered: this is creation order, as GET /servers lists them.
    [...items.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).forEach((data, i) => watcher.ready({ event: 'server', data, id: `${this.epoch}-${at}.${i + 1}` }));
    watcher.synced(true, this.ring.reserve());
    return this.watch(watcher, current);
  }

  /**
   * A client's watcher, and its caller as last re-checked (whose rights decide every change). A team's
   * answer is kept until the next re-check, so a burst of changes costs one store read per team, not
   * one per change (on MongoDB nothing of a user's rights is kept in memory otherwise).
   */
  private watcher(caller: Caller, release: () => void): { watcher: ServerWatcher; current: WatchedCaller } {
    const current: WatchedCaller = { caller, checked: new Map() };
    const watcher = new ServerWatcher(
      (seq) => `${this.epoch}-${seq}`,
      (teamId) => current.checked.get(teamId) ?? current.checked.set(teamId, this.may(current.caller, teamId)).get(teamId)!,
      (w) => {
        this.watchers.delete(w);
        current.unguard?.();
        release();
      },
      (err) => this.deps.logger.error({ err }, 'server watch delivery failed; the client resumes'),
    );
    return { watcher, current };
  }

  /** Starts the client's changes and its access re-checks (after its opening events, so they cover them too). */
  private watch(watcher: ServerWatcher, current: WatchedCaller): ServerWatcher {
    this.watchers.add(watcher);
    const { caller } = current;
    const recheck = async () => {
      const now = await this.guards.current(caller);
      if (!now) return undefined;
      current.caller = now;
      current.checked = new Map();
      const teams = await this.access.teamsWith(now, 'servers.read');
      return teams ? (teamId: string) => teams.includes(teamId) : () => true;
    };
    current.unguard = this.guards.watch(caller, () => watcher.recheck(recheck, () => `${this.epoch}-${this.ring.reserve()}`));
    return watcher;
  }

  private may(caller: Caller, teamId: string): Promise<boolean> {
    return this.access.may(caller, teamId, 'servers.read');
  }

  /** The change number a `Last-Event-ID` names, if it is one of this process's and not a snapshot item's. */
  private seqOf(lastEventId: string | undefined): number | undefined {
    const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastEventId?.trim() ?? '');
    return match && match[1] === this.epoch ? Number(match[2]) : undefined;
  }
}
