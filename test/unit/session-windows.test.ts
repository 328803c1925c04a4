import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { widenSessionWindows } from '../../src/controller/link/session-windows.js';
import { linkWindowBytes } from '../../src/shared/link/flow-control.js';

describe('Session windows', () => {
  it('grants a client of the link server the link window per stream and per connection (this grpc-js still makes its servers where we hook in)', async () => {
    const server = new grpc.Server();
    expect(widenSessionWindows(server)).to.equal(true);
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    const listener = net.createServer((socket) => injector.injectConnection(socket)).listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const client = http2.connect(`http://127.0.0.1:${(listener.address() as net.AddressInfo).port}`);
    try {
      // The server's first SETTINGS frame is HTTP/2's defaults; the link's follow it.
      const granted = () => client.remoteSettings.initialWindowSize === linkWindowBytes && client.state.remoteWindowSize === linkWindowBytes;
      const deadline = Date.now() + 5_000;
      while (!granted() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(client.remoteSettings.initialWindowSize).to.equal(linkWindowBytes);
      expect(client.state.remoteWindowSize).to.equal(linkWindowBytes);
    } finally {
      client.destroy();
      injector.destroy();
      listener.close();
      server.forceShutdown();
    }
  });
});
