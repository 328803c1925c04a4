import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { openEventStream } from '../../src/controller/http/sse.js';
import { EventStreamReader } from '../support/event-stream.js';
import { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

describe('Server-Sent Events streams (GET /servers/watch, console)', () => {
  let http: Server;
  let closed = false;

  before(async () => {
    const app = new Koa();
    app.use(async (ctx) => {
      const stream = openEventStream(ctx, { keepAliveMs: 30 });
      stream.send('server', { id: 'x' });
      void stream.closed.then(() => (closed = true));
    });
    http = await new Promise<Server>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
  });
  after(() => {
    http.closeAllConnections();
    http.close();
  });

  it('opens at once, sends events, keeps the connection alive with comments, and notices the client leaving', async () => {
    const reader = await EventStreamReader.open(new ApiClient(`http://127.0.0.1:${(http.address() as AddressInfo).port}`), '/watch');
    expect(reader.contentType).to.match(/^text\/event-stream/);
    await reader.next((e) => e.event === 'server', 'the event');
    expect(reader.events[0].data).to.deep.equal({ id: 'x' });
    await waitFor(() => reader.comments.filter((c) => c === 'keep-alive').length >= 2 || undefined, { what: 'two keep-alive comments' });
    expect(reader.comments[0]).to.equal('open');
    reader.close();
    await waitFor(() => closed || undefined, { what: 'the server to see the client leave' });
  });
});
