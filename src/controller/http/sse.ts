import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export const keepAliveMs = 15_000;
/** A client this far behind (bytes written, not yet taken) is let go instead of buffered forever. */
export const maxLagBytes = 4 * 1024 * 1024;

/** The `end` event's reason when the Controller shuts down (the console's own ends use the same event). */
export const shutdownReason = 'shutdown';

export interface EventStream {
  /** `id` becomes the event's SSE id: what the client sends back as `Last-Event-ID` when it reconnects. */
  send(event: string, data: unknown, id?: string): void;
  close(): void;
  /** Resolves when the client goes away or the stream is closed. */
  closed: Promise<void>;
  /** Bytes written but not yet taken by the client: how far a slow client lags. */
  readonly bufferedBytes: number;
}

/** Every app's open streams, so a shutdown can end them all; `ending` once it has begun. */
const openStreams = new WeakMap<object, { ending?: string; streams: Set<EventStream> }>();

function streamsOf(app: object): { ending?: string; streams: Set<EventStream> } {
  let entry = openStreams.get(app);
  if (!entry) openStreams.set(app, (entry = { streams: new Set() }));
  return entry;
}

/** Sends the stream's last event, `end` with why, and closes it: a shutdown, a revoked access, the server's stop. */
export function endEventStream(stream: EventStream, data: { reason: string }): void {
  stream.send('end', data);
  stream.close();
}

/**
 * Ends every stream `app` has open with a last `end` event `{reason}` and closes it; a stream
 * opened afterwards (on a connection still alive) gets the same at once. Returns how many it ended.
 */
export function endEventStreams(app: object, reason: string): number {
  const entry = streamsOf(app);
  entry.ending = reason;
  const open = [...entry.streams];
  for (const stream of open) endEventStream(stream, { reason });
  return open.length;
}

/**
 * Opens a Server-Sent Events response: no buffering or compression on the way, a keep-alive
 * comment every 15 seconds, and `closed` resolving the moment the client leaves.
 */
export function openEventStream(ctx: Context, options: { keepAliveMs?: number } = {}): EventStream {
  const body = new PassThrough();
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  (ctx as unknown as { compress?: boolean }).compress = false;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.body = body;

  let done = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const timer = setInterval(() => body.write(': keep-alive\n\n'), options.keepAliveMs ?? keepAliveMs);
  const finish = () => {
    if (done) return;
    done = true;
    clearInterval(timer);
    body.end();
    resolveClosed();
  };
  ctx.req.on('close', finish);
  body.on('close', finish);
  // The first bytes go out at once so clients and proxies see the stream open.
  body.write(': open\n\n');
  const stream: EventStream = {
    send(event, data, id) {
      if (!done) body.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close: finish,
    closed,
    get bufferedBytes() {
      return body.writableLength;
    },
  };
  const registry = streamsOf(ctx.app);
  registry.streams.add(stream);
  void closed.then(() => registry.streams.delete(stream));
  if (registry.ending) endEventStream(stream, { reason: registry.ending });
  return stream;
}
