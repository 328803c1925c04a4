import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ConsoleLog } from './console-log.js';
import { listenExclusive } from './listen.js';

/**
 * The game port. Every TCP connection counts as a player until it closes; nothing is spoken on it,
 * which is enough for probes, the proxy and `list`.
 */
export class PlayerListener {
  private readonly players = new Map<Socket, string>();
  private readonly server: Server;
  private joined = 0;

  constructor(private readonly log: ConsoleLog) {
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(port: number, host: string | undefined): Promise<AddressInfo> {
    return listenExclusive(this.server, port, host);
  }

  names(): string[] {
    return [...this.players.values()];
  }

  /** Disconnects every player and frees the port. */
  close(): Promise<void> {
    for (const socket of this.players.keys()) socket.destroy();
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
  }

  private accept(socket: Socket): void {
    const name = `Player${++this.joined}`;
    this.players.set(socket, name);
    this.log.info(`${name}[/${socket.remoteAddress}:${socket.remotePort}] logged in`);
    this.log.info(`${name} joined the game`);
    socket.resume();
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      if (!this.players.delete(socket)) return;
      this.log.info(`${name} lost connection: Disconnected`);
      this.log.info(`${name} left the game`);
    });
  }
}
