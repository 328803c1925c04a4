import type { ConsoleEnd, ConsoleLine } from '../../../shared/link/messages.js';
import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { Logger } from '../../../shared/logger.js';
import { tooManyAttempts } from '../../core/errors.js';
import type { AgentInbound } from '../../link/agent-events.js';
import type { ConsoleEndEvent, ConsoleLineEvent, ConsoleReplayedEvent } from '../../schemas/console-events.js';
import type { ServerDoc } from '../../store/records.js';
import { accessRevokedReason } from '../identity/access-events.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { HoldingStream } from '../identity/stream-guard.js';

/** The spec's limit of simultaneous console streams per server, for every caller (global administrators too). */
export const maxConsoleWatchers = 4;
/** Console streams one user may hold on one server, so one user cannot take all of a server's streams. */
export const maxConsoleWatchersPerUser = 2;
/** Seconds a refused watcher is told to wait. */
export const consoleRetryAfterSeconds = 5;
/** Lines kept for a watcher whose replay has not arrived yet; beyond this the oldest go. */
const maxPendingLines = 2_000;

export interface ConsoleSink {
  line(event: ConsoleLineEvent): void;
  /** Once, after the replayed lines (even none): a client that wanted only the tail can stop here. */
  replayed(event: ConsoleReplayedEvent): void;
  end(event: ConsoleEndEvent): void;
}

/** One watcher's handle: start it with a sink once the response is open; close it when the client leaves. */
export interface ConsoleWatch {
  start(sink: ConsoleSink): void;
  close(): void;
}

const lineEvent = (line: ConsoleLine, replay: boolean): ConsoleLineEvent => ({
  text: line.text, at: new Date(line.atUnixMs).toISOString(), truncated: line.truncated, replay,
});

export function endEvent(end: ConsoleEnd): ConsoleEndEvent {
  const event: ConsoleEndEvent = { reason: end.reason };
  if (end.hasExitCode) event.exitCode = end.exitCode;
  if (end.signal) event.signal = end.signal;
  return event;
}

/**
 * One client of a server's console. Until its replay is in, live lines wait here; then the
 * replay goes out, marked done by `replayed`, followed by the waiting lines newer than the replay
 * (by sequence number), so the client sees every line once and in order. Lines also wait while
 * the caller's access is re-checked (`hold`), and are dropped if it ended (`revoke`).
 */
class Watcher implements ConsoleWatch, HoldingStream {
  private sink?: ConsoleSink;
  private pending: ConsoleLine[] = [];
  private replay: ConsoleLine[] = [];
  private afterSeq = -1;
  private ended?: ConsoleEndEvent;
  private holding = false;
  closed = false;

  constructor(readonly userId: string, private readonly onClose: (w: Watcher) => void) {}

  replayed(lines: ConsoleLine[]): void {
    this.replay = lines;
  }

  push(line: ConsoleLine): void {
    if (this.ended || this.closed) return;
    if (!this.sink || this.holding) {
      this.pending.push(line);
      if (this.pending.length > maxPendingLines) this.pending.shift();
      return;
    }
    if (line.seq > this.afterSeq) this.sink.line(lineEvent(line, false));
  }

  end(event: ConsoleEndEvent): void {
    if (this.ended || this.closed) return;
    this.ended = event;
    this.sink?.end(event);
  }

  start(sink: ConsoleSink): void {
    this.sink = sink;
    for (const line of this.replay) {
      sink.line(lineEvent(line, true));
      this.afterSeq = Math.max(this.afterSeq, line.seq);
    }
    sink.replayed({ lines: this.replay.length });
    this.replay = [];
    if (!this.holding) this.flush();
    if (this.ended) sink.end(this.ended);
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    if (this.sink) this.flush();
  }

  revoke(): void {
    this.replay = [];
    this.pending = [];
    this.end({ reason: accessRevokedReason });
  }

  private flush(): void {
    const waiting = this.pending;
    this.pending = [];
    for (const line of waiting) if (line.seq > this.afterSeq) this.sink!.line(lineEvent(line, false));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}

interface ServerConsole {
  serverId: string;
  nodeId: string;
  watchers: Set<Watcher>;
  /** True while the Agent relays this server's lines for us. */
  subscribed: boolean;
}

/**
 * The Controller's console relay. All watchers of a server share one Agent subscription: the
 * first subscribes, the last one leaving unsubscribes, so an Agent sends lines only while someone
 * watches. Lines pass through memory to the watchers and are never stored or logged.
 */
export class ConsoleHub {
  private readonly servers = new Map<string, ServerConsole>();
  private readonly locks = new KeyedMutex();

  constructor(agents: AgentInbound, private readonly calls: NodeCalls, private readonly logger: Logger) {
    agents.onConsoleLine((nodeId, line) => {
      const server = this.servers.get(line.serverId);
      if (server?.nodeId === nodeId) server.watchers.forEach((w) => w.push(line));
    });
    agents.onConsoleEnd((nodeId, end) => {
      const server = this.servers.get(end.serverId);
      if (server?.nodeId === nodeId) this.endAll(server, endEvent(end));
    });
    // A Node's session gone means its Agent relays nothing any more: every watcher there ends.
    agents.onSessionEnd((nodeId) => {
      for (const server of [...this.servers.values()]) if (server.nodeId === nodeId) this.endAll(server, { reason: 'node_unavailable' });
    });
  }

  /** Watchers of a server now (including ones still waiting for their replay). */
  watching(serverId: string): number {
    return this.servers.get(serverId)?.watchers.size ?? 0;
  }

  /** Console streams open now, on every server (`cairn_console_streams`). */
  get streams(): number {
    let count = 0;
    for (const server of this.servers.values()) count += server.watchers.size;
    return count;
  }

  /**
   * Joins the server's console: refuses (429) a user's third watcher of the server, and any fifth
   * watcher of the server; subscribes at the Agent when needed and fetches the replay of the last `tail` lines. Errors come
   * before anything is sent.
   */
  async watch(doc: ServerDoc, tail: number, userId: string): Promise<ConsoleWatch & HoldingStream> {
    let server = this.servers.get(doc._id);
    if (server) {
      if (server.watchers.size >= maxConsoleWatchers) throw tooManyAttempts(consoleRetryAfterSeconds);
      let own = 0;
      for (const w of server.watchers) if (w.userId === userId) own += 1;
      if (own >= maxConsoleWatchersPerUser) throw tooManyAttempts(consoleRetryAfterSeconds);
    }
    if (!server) {
      server = { serverId: doc._id, nodeId: doc.nodeId ?? '', watchers: new Set(), subscribed: false };
      this.servers.set(doc._id, server);
    }
    const joined = server;
    const watcher = new Watcher(userId, (w) => this.leave(joined, w));
    joined.watchers.add(watcher);
    try {
      const response = await this.locks.run(doc._id, () =>
        this.calls.ask(doc, { body: 'consoleSubscribe', consoleSubscribe: { serverId: doc._id, tail } }, { timeoutMs: agentDeadlines.quick }));
      const replay = response.payload === 'consoleReplay' ? response.consoleReplay : undefined;
      watcher.replayed(replay?.entries ?? []);
      // A game that is gone: the Agent replayed the end of its last run, and nothing follows.
      if (replay?.end) watcher.end(endEvent(replay.end));
      else joined.subscribed = true;
    } catch (e) {
      watcher.close();
      throw e;
    }
    return watcher;
  }

  private leave(server: ServerConsole, watcher: Watcher): void {
    server.watchers.delete(watcher);
    if (server.watchers.size > 0) return;
    void this.locks.run(server.serverId, async () => {
      if (server.watchers.size > 0) return;
      if (this.servers.get(server.serverId) === server) this.servers.delete(server.serverId);
      // A newer set of watchers of the same server shares the Agent's relay: it is theirs now.
      if (!server.subscribed || this.servers.has(server.serverId)) return;
      server.subscribed = false;
      try {
        await this.calls.askNode(server.nodeId, { body: 'consoleUnsubscribe', consoleUnsubscribe: { serverId: server.serverId } }, { timeoutMs: agentDeadlines.quick });
      } catch (err) {
        // The Agent drops subscriptions of a link that goes away, so a failed unsubscribe leaves nothing running.
        this.logger.debug({ err, serverId: server.serverId }, 'console unsubscribe failed');
      }
    });
  }

  /** Ends every watcher of the server; their leaving still unsubscribes, in case the Agent relays a newer process. */
  private endAll(server: ServerConsole, event: ConsoleEndEvent): void {
    if (this.servers.get(server.serverId) === server) this.servers.delete(server.serverId);
    for (const watcher of server.watchers) watcher.end(event);
  }
}
