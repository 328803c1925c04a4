import type { Server, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { endEventStreams, shutdownReason } from './sse.js';

/** After the deadline destroyed the last connections, how long their handlers get to settle (an aborted upload records its audit event). */
const settleAfterDestroyMs = 2_000;

export interface DrainReport {
  /** Event streams ended with `end {reason: "shutdown"}`. */
  streamsEnded: number;
  /** Requests still running when the drain began. */
  requestsInFlight: number;
  /** Whether the deadline ran out and the remaining connections were destroyed. */
  deadlineHit: boolean;
}

/**
 * The HTTP side of a graceful shutdown. The app's first middleware (`front.ts`) tells it of every
 * request from arrival until both its handler has returned and its response is over; `drain` then
 * stops accepting connections, ends the event streams, lets the rest finish, and destroys what is
 * left at the deadline. Answers sent while draining carry `Connection: close`, so keep-alive
 * clients leave instead of sending more.
 */
export class HttpDrain {
  /** Each request's response, with what is left of its two ends: the handler's return and the response's end (sent or its connection gone). */
  private readonly inFlight = new Map<ServerResponse, number>();
  private draining = false;
  private server?: Server;
  private onIdle?: () => void;

  /** A request arrived. Two counts and one listener shared by all responses, rather than promises and closures: this runs on every request. */
  begin(res: ServerResponse): void {
    this.inFlight.set(res, 2);
    res.on('close', this.closed);
  }

  /** The request's handlers have returned (its response may still be going out). */
  handled(ctx: Koa.Context): void {
    if (this.draining && !ctx.res.headersSent) ctx.set('Connection', 'close');
    this.ended(ctx.res);
  }

  /** The response's `close` listener: `this` is the response. */
  private readonly closed = ((drain: HttpDrain) => function (this: ServerResponse) {
    drain.ended(this);
  })(this);

  /** Runs to completion once `server.close()` would wait for nothing but the deadline. */
  async drain(app: Koa, server: Server, deadlineMs: number): Promise<DrainReport> {
    this.draining = true;
    this.server = server;
    const requestsInFlight = this.inFlight.size;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const res of this.inFlight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
    const streamsEnded = endEventStreams(app, shutdownReason);
    const idle = new Promise<void>((resolve) => {
      this.onIdle = resolve;
      if (this.inFlight.size === 0) resolve();
    });
    server.closeIdleConnections();
    const deadlineHit = !(await within(idle, deadlineMs));
    if (deadlineHit) {
      server.closeAllConnections();
      await within(idle, settleAfterDestroyMs);
    }
    server.closeAllConnections();
    await closed;
    return { streamsEnded, requestsInFlight, deadlineHit };
  }

  private ended(res: ServerResponse): void {
    const pending = (this.inFlight.get(res) ?? 0) - 1;
    if (pending > 0) {
      this.inFlight.set(res, pending);
      return;
    }
    this.inFlight.delete(res);
    if (!this.draining) return;
    // A stream that just ended leaves its keep-alive connection idle: close it now, not at its timeout.
    setImmediate(() => this.server?.closeIdleConnections());
    if (this.inFlight.size === 0) this.onIdle?.();
  }
}

/** True when `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
