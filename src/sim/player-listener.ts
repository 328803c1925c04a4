import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ConsoleLog } from './console-log.js';
import { listenExclusive } from './listen.js';
import { ServerListPingSession, startsHandshake, type ServerStatusInfo } from './server-list-ping.js';

/**
 * How long a new connection may take to start a Server List Ping before it is taken for a player:
 * a Minecraft client speaks first, simcraft's plain clients wait for the greeting.
 */
const pingWindowMs = 100;

/**
 * The game port. A connection that starts with a handshake gets the Server List Ping answered
 * (server-list-ping.ts) and is no player. Every other TCP connection counts as a player until it
 * closes: the server speaks one line first, its greeting (which server, on which port, its motd),
 * so a client that came through the proxy can tell where it landed; nothing else is spoken.
 */
export class PlayerListener {
  private readonly players = new Map<Socket, string>();
  private readonly server: Server;
  private joined = 0;
  private greeting = '';
  private status: () => ServerStatusInfo = () => ({ version: '', protocol: 0, max: 0, online: 0, motd: '' });
  /** `fakeplayers <n>`: the online count the status reports instead of the connections (a test hook). */
  fakeOnline?: number;

  constructor(private readonly log: ConsoleLog) {
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Listens on the game port; each player is first sent `greeting` and a line break; a ping gets `status` with the online count. */
  listen(port: number, host: string | undefined, greeting: string, status: (online: number) => ServerStatusInfo): Promise<AddressInfo> {
    this.greeting = greeting;
    this.status = () => status(this.fakeOnline ?? this.players.size);
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
    socket.on('error', () => socket.destroy());
    const asPlayer = () => {
      socket.removeListener('data', first);
      this.join(socket);
    };
    const timer = setTimeout(asPlayer, pingWindowMs);
    const first = (chunk: Buffer) => {
      clearTimeout(timer);
      if (!startsHandshake(chunk)) return asPlayer();
      socket.removeListener('data', first);
      this.answerPing(socket, chunk);
    };
    socket.on('data', first);
    socket.once('close', () => clearTimeout(timer));
  }

  private answerPing(socket: Socket, firstChunk: Buffer): void {
    const session = new ServerListPingSession(this.status);
    const feed = (chunk: Buffer) => {
      for (const answer of session.receive(chunk)) socket.write(answer);
      if (session.done) socket.end();
    };
    socket.on('data', feed);
    feed(firstChunk);
  }

  private join(socket: Socket): void {
    const name = `Player${++this.joined}`;
    this.players.set(socket, name);
    this.log.info(`${name}[/${socket.remoteAddress}:${socket.remotePort}] logged in`);
    this.log.info(`${name} joined the game`);
    socket.write(`${this.greeting}\n`);
    socket.resume();
    socket.once('close', () => {
      if (!this.players.delete(socket)) return;
      this.log.info(`${name} lost connection: Disconnected`);
      this.log.info(`${name} left the game`);
    });
  }
}
