import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ConsoleLog } from './console-log.js';
import { listenExclusive } from './listen.js';

/**
 * The game port. Every TCP connection counts as a player until it closes. The server speaks one
 * line first, its greeting (which server, on which port, its motd), so a client that came through
 * the proxy can tell where it landed; nothing else is spoken.
 */
export class PlayerListener {
  private readonly players = new Map<Socket, string>();
  private readonly server: Server;
  private joined = 0;
  private greeting = '';

  constructor(private readonly log: ConsoleLog) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on the game port; each player is first sent `greeting` and a line break. */
  listen(port: number, host: string | undefined, greeting: string): Promise<AddressInfo> {
    this.greeting = greeting;
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
    socket.on('error', () => socket.destroy());
    socket.write(`${this.greeting}\n`);
    socket.resume();
    socket.once('close', () => {
      if (!this.players.delete(socket)) return;
      this.log.info(`${name} lost connection: Disconnected`);
      this.log.info(`${name} left the game`);
    });
  }
}
