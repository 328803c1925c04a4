import type { IncomingMessage } from 'node:http';
import { DomainError, type ErrorCode } from '../../core/errors.js';
import { eventLines, jsonLines, type HolderRoutes, type PeerController, type PeerHttp } from '../../link/peer-http.js';
import type { ConsoleEndEvent, ConsoleLineEvent, ConsoleReplayedEvent } from '../../schemas/console-events.js';
import type { ServerDoc } from '../../store/records.js';
import { accessRevokedReason } from '../identity/access-events.js';
import type { HoldingStream } from '../identity/stream-guard.js';
import type { ConsoleSink, ConsoleWatch } from './console-hub.js';

/** What a console stream opened for another Controller asks of the holder: the watcher counts against `userId` there. */
export interface ForwardedConsole {
  serverId: string;
  tail: number;
  userId: string;
}

/** The holder's console events as its watcher sends them (an SSE stream, as the API's); `end` is the last. */
type ForwardedConsoleEvent = { line: ConsoleLineEvent } | { replayed: ConsoleReplayedEvent } | { end: ConsoleEndEvent };

/** The holder's refusal before the stream opened (429 with its Retry-After, 404, 503), said again here. */
export interface ForwardedRefusal {
  code: ErrorCode;
  detail?: string;
  headers?: Record<string, string>;
}

export const consolePath = '/internal/v1/console';

/**
 * One console watcher whose server's Node another Controller drives: the holder's console hub
 * serves it (its replay, its limits), and its events are relayed here. Access is still guarded
 * here (hold, release, revoke), where the caller's stream is.
 */
class RemoteWatch implements ConsoleWatch, HoldingStream {
  private sink?: ConsoleSink;
  private waiting: ForwardedConsoleEvent[] = [];
  private holding = false;
  private ended = false;

  constructor(private readonly answer: IncomingMessage, private readonly abort: AbortController) {
    void this.relay();
  }

  private async relay(): Promise<void> {
    try {
      for await (const { event, data } of eventLines(this.answer)) {
        if (event === 'line') this.take({ line: data as ConsoleLineEvent });
        else if (event === 'replayed') this.take({ replayed: data as ConsoleReplayedEvent });
        else if (event === 'end') this.take({ end: data as ConsoleEndEvent });
      }
    } catch {
      // The holder went away mid-stream: the Node is unavailable from here, said by the end below.
    }
    this.take({ end: { reason: 'node_unavailable' } });
  }

  private take(event: ForwardedConsoleEvent): void {
    if (this.ended) return;
    if ('end' in event) this.ended = true;
    if (!this.sink || this.holding) this.waiting.push(event);
    else this.emit(this.sink, event);
  }

  private emit(sink: ConsoleSink, event: ForwardedConsoleEvent): void {
    if ('line' in event) sink.line(event.line);
    else if ('replayed' in event) sink.replayed(event.replayed);
    else sink.end(event.end);
  }

  private flush(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const event of waiting) this.emit(this.sink!, event);
  }

  start(sink: ConsoleSink): void {
    this.sink = sink;
    if (!this.holding) this.flush();
  }

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
    if (this.sink) this.flush();
  }

  revoke(): void {
    this.waiting = [];
    this.abort.abort();
    if (this.ended) return;
    this.ended = true;
    this.sink?.end({ reason: accessRevokedReason });
    if (!this.sink) this.waiting.push({ end: { reason: accessRevokedReason } });
  }

  close(): void {
    this.abort.abort();
  }
}

/** Console streams of servers on Nodes another Controller drives, opened at that Controller. */
export class RemoteConsole {
  constructor(private readonly routes: HolderRoutes, private readonly peers: PeerHttp) {}

  holderOf(doc: ServerDoc): Promise<PeerController | undefined> {
    return doc.nodeId ? this.routes.holderOf(doc.nodeId) : Promise.resolve(undefined);
  }

  /** Errors come before anything is sent, as for a local watcher: the holder's refusal, or the Node unavailable. */
  async watch(holder: PeerController, doc: ServerDoc, tail: number, userId: string): Promise<ConsoleWatch & HoldingStream> {
    const abort = new AbortController();
    const request: ForwardedConsole = { serverId: doc._id, tail, userId };
    let answer: IncomingMessage;
    try {
      answer = await this.peers.post(holder, consolePath, 'console', request, abort.signal);
    } catch {
      this.routes.forget(doc.nodeId!);
      throw new DomainError('node_unavailable', 'The server\'s Node is not connected.');
    }
    if (answer.statusCode === 200) return new RemoteWatch(answer, abort);
    const refusal = passedOn.has(answer.statusCode ?? 0) ? await readRefusal(answer) : (answer.resume(), unavailable);
    if (refusal.code === 'node_unavailable') this.routes.forget(doc.nodeId!);
    throw new DomainError(refusal.code, refusal.detail, { headers: refusal.headers ?? {} });
  }
}

const unavailable: ForwardedRefusal = { code: 'node_unavailable', detail: 'The server\'s Node is not connected.' };
/**
 * The holder's refusals the caller is told as they are: the server gone, not running, the
 * console's watcher limits, the Node unavailable there. Any other (our token refused, a proxy's page) is the Node
 * being unreachable from here, never the caller's fault.
 */
const passedOn = new Set([404, 409, 429, 503]);

async function readRefusal(answer: IncomingMessage): Promise<ForwardedRefusal> {
  try {
    for await (const refusal of jsonLines<Partial<ForwardedRefusal>>(answer)) return refusal.code ? (refusal as ForwardedRefusal) : unavailable;
  } catch {
    // An answer that is not ours (a proxy's page, a cut connection): the Node cannot be reached through it.
  }
  return unavailable;
}
