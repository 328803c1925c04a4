import { expect } from 'chai';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { HttpDrain } from '../../src/controller/http/drain.js';
import { frontMiddleware } from '../../src/controller/http/front.js';
import { createMetrics } from '../../src/controller/metrics/registry.js';
import { openEventStream } from '../../src/controller/http/sse.js';
import { openSse } from '../support/sse.js';
import { silentLogger } from '../../src/shared/logger.js';

/** A Koa app with the Controller's front middleware (and so the drain): `/stream` is an event stream, `/slow` answers when `release` is called. */
async function startApp(): Promise<{ app: Koa; server: Server; drain: HttpDrain; url: string; release: () => void; slowStarted: Promise<void>; handlerEnded: Promise<void> }> {
  const drain = new HttpDrain();
  const app = new Koa();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let slowStarted!: () => void;
  const started = new Promise<void>((resolve) => (slowStarted = resolve));
  let handlerEnded!: () => void;
  const ended = new Promise<void>((resolve) => (handlerEnded = resolve));
  app.use(frontMiddleware({ drain, metrics: createMetrics('test'), logger: silentLogger }));
  app.use(async (ctx) => {
    if (ctx.path === '/stream') {
      openEventStream(ctx);
      return;
    }
    if (ctx.path === '/slow') {
      slowStarted();
      await Promise.race([released, new Promise((resolve) => ctx.req.once('close', resolve))]);
      handlerEnded();
    }
    ctx.body = { ok: true };
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { app, server, drain, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, release, slowStarted: started, handlerEnded: ended };
}

/** A GET on its own connection: the status and Connection header, or the error that ended it. */
function get(url: string): Promise<{ status?: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    request(url, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
    }).once('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message })).end();
  });
}

describe('HTTP drain on shutdown', function () {
  this.timeout(10_000);

  it('with nothing in flight, finishes at once, idle keep-alive connections included', async () => {
    const { app, server, drain, url } = await startApp();
    expect((await fetch(`${url}/fast`)).status).to.equal(200);
    const startedAt = Date.now();
    expect(await drain.drain(app, server, 5_000)).to.deep.equal({ streamsEnded: 0, requestsInFlight: 0, deadlineHit: false });
    expect(Date.now() - startedAt).to.be.below(1_000);
  });

  it('ends event streams with `end {reason: shutdown}`, lets a running request answer (with Connection: close), refuses new connections', async () => {
    const { app, server, drain, url, release, slowStarted } = await startApp();
    const stream = await openSse(`${url}/stream`, {});
    const slow = get(`${url}/slow`);
    await slowStarted;
    const drained = drain.drain(app, server, 5_000);
    expect((await stream.next((e) => e.event === 'end')).data).to.deep.equal({ reason: 'shutdown' });
    await stream.ended;
    expect(await get(`${url}/fast`)).to.deep.equal({ error: 'ECONNREFUSED' });
    release();
    expect(await slow).to.deep.equal({ status: 200, connection: 'close' });
    expect(await drained).to.deep.equal({ streamsEnded: 1, requestsInFlight: 2, deadlineHit: false });
  });

  it('at the deadline destroys what is left and waits for its handler to return', async () => {
    const { app, server, drain, url, slowStarted, handlerEnded } = await startApp();
    const slow = get(`${url}/slow`);
    await slowStarted;
    const startedAt = Date.now();
    const report = await drain.drain(app, server, 300);
    expect(Date.now() - startedAt).to.be.within(290, 2_000);
    expect(report).to.deep.equal({ streamsEnded: 0, requestsInFlight: 1, deadlineHit: true });
    expect(await slow).to.deep.equal({ error: 'ECONNRESET' });
    await handlerEnded;
  });
});
