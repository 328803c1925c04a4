import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { SimproxyRouteSpec } from '../shared/simproxy-config.js';
import type { ConsoleLog } from './console-log.js';
import { listenExclusive } from './listen.js';

/**
 * Forwards each accepted connection to the first route of `order()` (taken at that moment) that
 * accepts it, trying the next when one refuses, as Velocity's `try` list does; a connection keeps
 * its server for life, as players do. Half-closes pass through, so a request/response exchange
 * finishes before the sockets close.
 */
export class TcpForwarder {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly log: ConsoleLog, private readonly order: () => SimproxyRouteSpec[]) {
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
    client.pause();
    client.on('error', () => client.destroy());
    const routes = this.order();
    if (routes.length === 0) {
      this.log.warn(`[initial connection] ${from}: no server to send the player to, closing`);
      this.refuse(client);
      return;
    }
    this.tryRoute(client, from, routes, 0);
  }

  private refuse(client: Socket): void {
    client.resume();
    client.end(() => client.destroy());
  }

  private tryRoute(client: Socket, from: string, routes: SimproxyRouteSpec[], index: number): void {
    const route = routes.at(index);
    if (!route || client.destroyed) {
      if (!client.destroyed) this.log.warn(`[initial connection] ${from}: no server accepted the player, closing`);
      this.refuse(client);
      return;
    }
    const upstream = connect({ host: route.address, port: route.port, allowHalfOpen: true });
    this.track(upstream);
    const failed = (error: Error) => {
      this.log.warn(`[connected player] ${from}: unable to connect to ${route.name}: ${error.message}`);
      upstream.destroy();
      this.tryRoute(client, from, routes, index + 1);
    };
    upstream.once('error', failed);
    upstream.once('connect', () => {
      upstream.off('error', failed);
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
      this.log.info(`[connected player] ${from} has connected to ${route.name} (${route.address}:${route.port})`);
      const closeBoth = () => {
        client.destroy();
        upstream.destroy();
      };
      upstream.on('error', closeBoth);
      client.on('error', closeBoth);
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }
}
