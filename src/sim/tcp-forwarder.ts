import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { SimproxyRouteSpec } from '../shared/simproxy-config.js';
import type { ConsoleLog } from './console-log.js';
import { listenExclusive } from './listen.js';

/**
 * Forwards each accepted connection to the route `pick()` names at that moment; a connection keeps
 * its server for life, as players do. Half-closes pass through, so a request/response exchange
 * finishes before the sockets close.
 */
export class TcpForwarder {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly log: ConsoleLog, private readonly pick: () => SimproxyRouteSpec | undefined) {
    this.server = createServer({ allowHalfOpen: true }, (client) => this.forward(client));
  }

  listen(port: number, host: string | undefined): Promise<AddressInfo> {
    return listenExclusive(this.server, port, host);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private forward(client: Socket): void {
    this.track(client);
    const from = `/${client.remoteAddress}:${client.remotePort}`;
    const route = this.pick();
    if (!route) {
      this.log.warn(`[initial connection] ${from}: no server to send the player to, closing`);
      client.on('error', () => client.destroy());
      client.resume();
      client.end(() => client.destroy());
      return;
    }
    const upstream = connect({ host: route.address, port: route.port, allowHalfOpen: true });
    this.track(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.once('connect', () => this.log.info(`[connected player] ${from} has connected to ${route.name} (${route.address}:${route.port})`));
    upstream.on('error', (error) => {
      this.log.warn(`[connected player] ${from}: unable to connect to ${route.name}: ${error.message}`);
      closeBoth();
    });
    client.on('error', closeBoth);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
