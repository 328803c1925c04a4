import type { ServerWatchEnd, ServerWatchSynced } from '../../schemas/watch-events.js';
import { accessRevokedReason } from '../identity/access-events.js';
import type { ServerListItemView } from './views.js';
import type { RingEntry } from './watch-ring.js';

/** A change as the watch stream names it. */
export type ServerChangeEvent =
  | { event: 'server'; data: ServerListItemView }
  | { event: 'server-deleted'; data: { id: string } };

/** An event as the stream sends it, with its SSE id. */
export type StreamedWatchEvent = (ServerChangeEvent | { event: 'synced'; data: ServerWatchSynced }) & { id: string };

/** What the journal keeps of one change: the event, and the team that decides who may see it. */
export interface JournalEntry {
  teamId: string;
  serverId: string;
  change: ServerChangeEvent;
  /** When the record was written (its `updatedAt`, later at every write): orders two states of one generation; never sent to clients. */
  at?: string;
  /** The Node a workflow has remove its copy of the server (`workflow.removeOnNodeId`), so its holder hears the change too; never sent to clients. */
  removeOnNodeId?: string;
}

export interface WatchSink {
  send(event: StreamedWatchEvent): void;
  /** The last event: the stream is over for good (its caller lost its access). */
  end(event: ServerWatchEnd): void;
  /** The stream can no longer be kept whole (a failed check): the client reconnects and resumes. */
  close(): void;
}

/**
 * A re-check of the caller's access: which teams it may still read, or undefined when its
 * credential or its user is gone.
 */
export type AccessRecheck = () => Promise<((teamId: string) => boolean) | undefined>;

/** One client's handle: start it once the response is open; close it when the client leaves. */
export interface ServerWatch {
  start(sink: WatchSink): void;
  close(): void;
}

/**
 * One client of GET /servers/watch. Its opening events (snapshot or missed changes), its
 * `synced` and then every later change go through one chain, so they leave in the order they
 * happened even when a permission check of an earlier change answers later than a later one's.
 * Re-checks of the caller's access join the same chain: every change after the signal waits for it.
 */
export class ServerWatcher implements ServerWatch {
  private sink?: WatchSink;
  private chain: Promise<void>;
  private begin!: () => void;
  private closed = false;
  private sent = 0;
  /** The servers the client was told of and not told gone, with their teams. */
  private readonly shown = new Map<string, string>();
  private recheckQueued = false;

  constructor(
    private readonly idOf: (seq: number) => string,
    private readonly visible: (teamId: string) => Promise<boolean>,
    private readonly onClose: (watcher: ServerWatcher) => void,
    private readonly failed: (err: unknown) => void,
  ) {
    this.chain = new Promise((resolve) => (this.begin = resolve));
  }

  /** Queues an event already known to be readable (a snapshot item). */
  ready(event: StreamedWatchEvent): void {
    this.enqueue(async () => event);
  }

  /** Queues a change, sent if the caller may read its server's team. */
  change(entry: RingEntry<JournalEntry>): void {
    this.enqueue(async () => ((await this.visible(entry.value.teamId)) ? { ...entry.value.change, id: this.idOf(entry.seq) } : undefined));
  }

  /** Queues the `synced` marker, counting what was sent before it. */
  synced(snapshot: boolean, seq: number): void {
    this.enqueue(async () => ({ event: 'synced', data: { snapshot, events: this.sent }, id: this.idOf(seq) }));
  }

  /**
   * Queues a re-check of the caller's access (one at a time: a signal while one waits joins it).
   * A caller without access gets `end {reason: "access_revoked"}`; one that may no longer read
   * some servers is told they are gone (`server-deleted`, all with the id `removalId` names).
   */
  recheck(check: AccessRecheck, removalId: () => string): void {
    if (this.recheckQueued) return;
    this.recheckQueued = true;
    const id = removalId();
    this.chain = this.chain.then(async () => {
      this.recheckQueued = false;
      if (this.isClosed()) return;
      const readable = await check();
      if (this.isClosed()) return;
      if (!readable) {
        this.sink!.end({ reason: accessRevokedReason });
        this.close();
        return;
      }
      for (const [serverId, teamId] of this.shown) {
        if (!readable(teamId)) this.deliver({ event: 'server-deleted', data: { id: serverId }, id });
      }
    }).catch((err: unknown) => this.fail(err));
  }

  /** Queues the stream's close after what is queued: the client reconnects, and resumes or gets a snapshot. */
  resync(): void {
    this.chain = this.chain.then(() => {
      if (this.isClosed()) return;
      this.sink!.close();
      this.close();
    });
  }

  start(sink: WatchSink): void {
    this.sink = sink;
    this.begin();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }

  /** Read through a call: the client may leave while a check is awaited. */
  private isClosed(): boolean {
    return this.closed;
  }

  private enqueue(make: () => Promise<StreamedWatchEvent | undefined>): void {
    this.chain = this.chain
      .then(async () => {
        if (this.isClosed()) return;
        const event = await make();
        if (!event || this.isClosed()) return;
        if (event.event !== 'synced') this.sent += 1;
        this.deliver(event);
      })
      .catch((err: unknown) => this.fail(err));
  }

  private deliver(event: StreamedWatchEvent): void {
    if (event.event === 'server') this.shown.set(event.data.id, event.data.teamId);
    else if (event.event === 'server-deleted') this.shown.delete(event.data.id);
    this.sink!.send(event);
  }

  private fail(err: unknown): void {
    if (this.isClosed()) return;
    this.failed(err);
    this.sink?.close();
    this.close();
  }
}
