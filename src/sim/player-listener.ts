import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ConsoleLog } from './console-log.js';
import { ServerSession } from '../shared/minecraft-server-session.js';
import { listenExclusive } from './listen.js';
import { loginSuccess, startsHandshake, statusJson, type ServerStatusInfo } from './minecraft-answers.js';

/**
 * How long a new connection may take to start a handshake before it is taken for a plain player:
 * a Minecraft client speaks first, simcraft's plain clients wait for the greeting.
 */
const pingWindowMs = 100;

/**
 * The game port. A connection that starts with a handshake speaks Minecraft's protocol
 * (minecraft-answers.ts): a Server List Ping is answered and is no player; a login (Login Start)
 * gets Login Success and is a player, under its login name, until it closes. Every other TCP
 * connection is a plain player until it closes: the server speaks one line first, its greeting
 * (which server, on which port, its motd), so a client that came through the proxy can tell where
 * it landed; nothing else is spoken.
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

  /** Listens on the game port; each plain player is first sent `greeting` and a line break; a ping gets `status` with the online count. */
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
      this.join(socket, `Player${++this.joined}`);
      socket.write(`${this.greeting}\n`);
    };
    const timer = setTimeout(asPlayer, pingWindowMs);
    const first = (chunk: Buffer) => {
      clearTimeout(timer);
      if (!startsHandshake(chunk)) return asPlayer();
      socket.removeListener('data', first);
      this.answerProtocol(socket, chunk);
    };
    socket.on('data', first);
    socket.once('close', () => clearTimeout(timer));
  }

  private answerProtocol(socket: Socket, firstChunk: Buffer): void {
    const session = new ServerSession({
      status: () => statusJson(this.status()),
      login: (name) => {
        this.join(socket, name);
        return { packets: [loginSuccess(name)], stay: true };
      },
    });
    const feed = (chunk: Buffer) => {
      for (const answer of session.receive(chunk)) socket.write(answer);
      if (session.state === 'ended') socket.end();
    };
    socket.on('data', feed);
    feed(firstChunk);
  }

  /** Counts the connection as the player `name` until it closes; whatever it sends is read and dropped. */
  private join(socket: Socket, name: string): void {
    this.players.set(socket, name);
    this.log.info(`${name}[/${socket.remoteAddress}:${socket.remotePort}] logged in`);
    this.log.info(`${name} joined the game`);
    socket.resume();
    socket.once('close', () => {
      if (!this.players.delete(socket)) return;
      this.log.info(`${name} lost connection: Disconnected`);
      this.log.info(`${name} left the game`);
    });
  }
}
