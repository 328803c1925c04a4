import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { packet, writeString } from '../../shared/minecraft-packets.js';
import { ServerSession } from '../../shared/minecraft-server-session.js';
import { asleepReason, sleepingStatusJson, startingReason, type LastStatus } from './sleeping-status.js';

export interface SleeperOptions {
  port: number;
  /** The address the game binds; undefined binds every interface, as a game with an empty `server-ip` does. */
  host?: string;
  status: LastStatus;
  /** Called once, with the first login's name, after its disconnect is sent; later logins are turned away alike and call nothing. */
  onWake: (player: string) => void;
  /** False: a login is turned away saying the server sleeps, and wakes nothing (`sleep.wakeOnJoin`). Default true. */
  wakeOnJoin?: boolean;
  /** A connection that has not finished its exchange this long after it opened is closed (5 s; tests use less). */
  timeoutMs?: number;
}

/**
 * What one sleeping port may cost. A status or login exchange is a few hundred bytes and takes a
 * few round trips, so a connection gets 4 KiB and 5 s; past 128 open at once (a flood of 100
 * logins is still told why), new ones are closed on accept, so a flood costs nothing more.
 */
export const sleeperLimits = { timeoutMs: 5_000, maxBytesPerConnection: 4 * 1024, maxConnections: 128 };

/**
 * The game port of a sleeping server, answered in the game's place (shared/minecraft-server-session.ts
 * speaks the exchange): a status ping gets the game's last status with 0 players and never wakes
 * it; a login gets a disconnect saying the server starts, and the first one wakes it. Anything
 * else, or silence, is closed and wakes nothing: port scanners do not start games.
 */
export class Sleeper {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly statusJson: string;
  private readonly timeoutMs: number;
  private woken = false;

  private constructor(private readonly options: SleeperOptions) {
    this.statusJson = sleepingStatusJson(options.status);
    this.timeoutMs = options.timeoutMs ?? sleeperLimits.timeoutMs;
    this.server = createServer((socket) => this.answer(socket));
    this.server.maxConnections = sleeperLimits.maxConnections;
    // A failed accept loses that one connection; the port stays answered.
    this.server.on('error', () => undefined);
  }

  /** Binds the port and answers it until `close()`; rejects when the port cannot be bound. */
  static async listen(options: SleeperOptions): Promise<Sleeper> {
    const sleeper = new Sleeper(options);
    await new Promise<void>((resolve, reject) => {
      sleeper.server.once('error', reject);
      sleeper.server.listen({ port: options.port, host: options.host }, () => {
        sleeper.server.off('error', reject);
        resolve();
      });
    });
    return sleeper;
  }

  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  /** Frees the port for the game: every open connection is dropped, and once this resolves the port is unbound. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  private answer(socket: Socket): void {
    this.sockets.add(socket);
    const timer = setTimeout(() => socket.destroy(), this.timeoutMs);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    });
    let login: string | undefined;
    const wakes = this.options.wakeOnJoin !== false;
    const session = new ServerSession({
      status: () => this.statusJson,
      login: (name) => {
        if (wakes) login = name;
        return { packets: [packet(0x00, writeString(wakes ? startingReason : asleepReason))], stay: false };
      },
    });
    let read = 0;
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > sleeperLimits.maxBytesPerConnection) return socket.destroy();
      for (const answer of session.receive(chunk)) socket.write(answer);
      if (session.state === 'ended') socket.end();
      if (login !== undefined) this.wake(login);
    });
  }

  private wake(player: string): void {
    if (this.woken) return;
    this.woken = true;
    this.options.onWake(player);
  }
}
