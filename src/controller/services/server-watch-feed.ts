import { randomBytes } from 'node:crypto';
import type { Caller } from '../core/caller.js';
import type { ServerDoc } from '../store/records.js';
import type { Access } from './access.js';
import type { ServiceDeps } from './deps.js';
import type { ServerWatchHub } from './server-watch.js';
import type { ServerListItemView } from './server-views.js';
import { ServerWatcher, type JournalEntry, type ServerWatch } from './server-watcher.js';
import { WatchRing, type RingLimits } from './watch-ring.js';

/** How far back a reconnecting watch can resume: the last 10,000 changes of the last 5 minutes. */
export const watchRingLimits: RingLimits = { maxEntries: 10_000, maxAgeMs: 5 * 60_000 };

/**
 * GET /servers/watch: every server change, numbered and kept in a bounded ring, fanned out to
 * the clients that may read it. Event ids are `<epoch>-<seq>`: the epoch is this Controller
 * process's, `seq` grows with every change. A client opens with a snapshot of the servers it may
 * read (ids `<epoch>-<seq>.<n>`, then `synced`); one that reconnects with `Last-Event-ID` gets the
 * changes it missed, or a fresh snapshot when the ring no longer holds them, or the id is from
 * another process, malformed, or a snapshot item's.
 */
export class ServerWatchFeed {
  readonly epoch = randomBytes(4).toString('hex');
  private readonly ring: WatchRing<JournalEntry>;
  private readonly watchers = new Set<ServerWatcher>();

  constructor(
    hub: ServerWatchHub,
    private readonly view: (doc: ServerDoc) => ServerListItemView,
    private readonly access: Access,
    private readonly deps: ServiceDeps,
    limits = watchRingLimits,
  ) {
    this.ring = new WatchRing(limits, () => deps.clock.now().getTime());
    hub.subscribe(({ doc, deleted }) => {
      const entry = this.ring.append({
        teamId: doc.teamId, serverId: doc._id,
        // The state as it is now: later clients resuming get what this moment looked like.
        change: deleted ? { event: 'server-deleted', data: { id: doc._id } } : { event: 'server', data: this.view(doc) },
      });
      for (const watcher of this.watchers) watcher.change(entry);
    });
  }

  /** Opens one client's watch; reads (and may fail) before anything is sent. */
  async open(caller: Caller, lastEventId?: string): Promise<ServerWatch> {
    const resumeFrom = this.seqOf(lastEventId);
    const missed = resumeFrom === undefined ? undefined : this.ring.after(resumeFrom);
    if (!missed) return this.snapshot(caller);
    const watcher = this.watcher(caller);
    // One check per team for the whole replay, however many changes it holds.
    const checked = new Map<string, Promise<boolean>>();
    const visible = (teamId: string) => checked.get(teamId) ?? checked.set(teamId, this.may(caller, teamId)).get(teamId)!;
    for (const entry of missed) watcher.change(entry, visible);
    watcher.synced(false, this.ring.reserve());
    this.watchers.add(watcher);
    return watcher;
  }

  private async snapshot(caller: Caller): Promise<ServerWatch> {
    const before = this.ring.head;
    const teams = await this.access.teamsWith(caller.user, 'servers.read');
    const docs = await this.deps.repos.servers.find(teams ? { teamId: { $in: teams } } : {});
    // From here nothing awaits: the snapshot, its `synced` and the subscription are one moment.
    const readable = teams ? new Set(teams) : undefined;
    const latest = new Map<string, JournalEntry>();
    // A change during the read may or may not be in what was read: its journal entry is the newer truth.
    for (const { value } of this.ring.after(before) ?? []) if (!readable || readable.has(value.teamId)) latest.set(value.serverId, value);
    const items = new Map<string, ServerListItemView>();
    for (const doc of docs) if (!latest.has(doc._id)) items.set(doc._id, this.view(doc));
    for (const [id, entry] of latest) if (entry.change.event === 'server') items.set(id, entry.change.data);
    const at = this.ring.head;
    const watcher = this.watcher(caller);
    // Ids are time-ordered: this is creation order, as GET /servers lists them.
    [...items.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).forEach((data, i) => watcher.ready({ event: 'server', data, id: `${this.epoch}-${at}.${i + 1}` }));
    watcher.synced(true, this.ring.reserve());
    this.watchers.add(watcher);
    return watcher;
  }

  private watcher(caller: Caller): ServerWatcher {
    return new ServerWatcher(
      (seq) => `${this.epoch}-${seq}`,
      (teamId) => this.may(caller, teamId),
      (w) => this.watchers.delete(w),
      (err) => this.deps.logger.error({ err }, 'server watch delivery failed; the client resumes'),
    );
  }

  private may(caller: Caller, teamId: string): Promise<boolean> {
    return this.access.may(caller.user, teamId, 'servers.read');
  }

  /** The change number a `Last-Event-ID` names, if it is one of this process's and not a snapshot item's. */
  private seqOf(lastEventId: string | undefined): number | undefined {
    const match = /^([0-9a-f]+)-(\d{1,15})$/.exec(lastEventId?.trim() ?? '');
    return match && match[1] === this.epoch ? Number(match[2]) : undefined;
  }
}
