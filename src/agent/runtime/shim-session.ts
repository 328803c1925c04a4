import type { Socket } from 'node:net';
import { ConsoleRing } from './console-ring.js';
import { readFrames } from './frame-reader.js';
import { GameNotRunningError, type GameProcess } from './game-process.js';
import {
  encodeFrame,
  parseRequest,
  ProtocolError,
  type OutputLine,
  type GameExit,
  type ShimMessage,
  type ShimRequest,
  type ShimStatus,
} from './shim-protocol.js';

/** A client that lets this much output pile up unread is cut off rather than slowing the game. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface ShimSessionOptions {
  serverId: string;
  shimPid: number;
  startedAt: string;
  consoleLines: number;
  /** The Agent said it has the exit: stop listening and end every connection. */
  onRelease: () => void;
  log: (event: string, fields?: Record<string, unknown>) => void;
}

/** Whatever the game is: a live process, or (when it could not be spawned) only its exit. */
export type GameSlot = { kind: 'process'; game: GameProcess } | { kind: 'never-ran'; exit: GameExit };

/** Serves the protocol on every connection and fans console lines out to attached ones. */
export class ShimSession {
  private readonly ring: ConsoleRing;
  private readonly connections = new Set<Socket>();
  /** Attached connections with how much unread output each may pile up. */
  private readonly attached = new Map<Socket, number>();
  private nextSeq = 0;
  /** Connections that arrived before the game was spawned, served once it is. */
  private waiting: Socket[] = [];
  private slot: GameSlot | null = null;
  /** The game's own pid inside its box, when it runs in one. */
  private innerPid: number | undefined;
  private exit: GameExit | null = null;
  private readonly announced: Promise<GameExit>;
  private resolveAnnounced!: (exit: GameExit) => void;

  constructor(private readonly options: ShimSessionOptions) {
    this.ring = new ConsoleRing(options.consoleLines);
    this.announced = new Promise((resolve) => (this.resolveAnnounced = resolve));
  }

  /** The game, once spawned (connections are paused until then). */
  setGame(slot: GameSlot): void {
    this.slot = slot;
    if (slot.kind === 'never-ran') this.exit = slot.exit;
    for (const socket of this.waiting) this.serve(socket);
    this.waiting = [];
  }

  setInnerPid(pid: number): void {
    this.innerPid = pid;
  }

  addLine(stream: OutputLine['stream'], text: string, truncated: boolean): void {
    const line: OutputLine = { seq: this.nextSeq, stream, text, truncated, at: Date.now() };
    this.nextSeq += 1;
    this.ring.push(line);
    for (const [socket, limit] of this.attached) this.send(socket, { type: 'line', line }, limit);
  }

  /** Every connection hears the exit: the Agent's control connection and every console reader. */
  announceExit(exit: GameExit): void {
    this.exit = exit;
    for (const socket of this.connections) this.send(socket, { type: 'exit', exit }, Infinity);
    this.resolveAnnounced(exit);
  }

  serve(socket: Socket): void {
    if (!this.slot) {
      this.waiting.push(socket);
      return;
    }
    this.connections.add(socket);
    socket.on('close', () => {
      this.connections.delete(socket);
      this.attached.delete(socket);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') this.options.log('client_error', { message: error.message });
    });
    readFrames(
      socket,
      (frame) => void this.handleFrame(socket, frame),
      () => {
        this.send(socket, { id: null, type: 'error', code: 'frame_too_long', message: 'frame exceeds the size limit' });
        socket.end();
      },
    );
    socket.resume();
  }

  /** Ends every connection after what was already written to it. */
  endAll(): void {
    for (const socket of [...this.connections, ...this.waiting]) socket.end();
  }

  status(): ShimStatus {
    const base = {
      serverId: this.options.serverId, shimPid: this.options.shimPid, startedAt: this.options.startedAt,
      ...(this.innerPid === undefined ? {} : { innerPid: this.innerPid }),
    };
    const game = this.slot?.kind === 'process' ? this.slot.game : null;
    if (this.exit) return { ...base, state: 'exited', gamePid: game?.pid ?? null, exit: this.exit };
    if (!game) throw new Error('status was asked before the game was spawned');
    return { ...base, state: game.phase.state === 'stopping' ? 'stopping' : 'running', gamePid: game.pid };
  }

  private async handleFrame(socket: Socket, frame: string): Promise<void> {
    try {
      const reply = await this.handle(socket, parseRequest(frame));
      if (reply) this.send(socket, reply);
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.send(socket, { id: error.requestId, type: 'error', code: error.code, message: error.message });
      } else {
        this.options.log('request_failed', { message: error instanceof Error ? error.message : String(error) });
        socket.destroy();
      }
    }
  }

  private async handle(socket: Socket, request: ShimRequest): Promise<ShimMessage | null> {
    const { id } = request;
    switch (request.type) {
      case 'status':
        return { id, type: 'status', status: this.status() };
      case 'attach':
        this.attach(socket, id, request.tail);
        return null;
      case 'input':
        this.input(id, request.line);
        return { id, type: 'ok' };
      case 'stop':
        return { id, type: 'exited', exit: await this.whenGame((game) => game.stop(request.timeoutMs)) };
      case 'kill':
        return { id, type: 'exited', exit: await this.whenGame((game) => game.kill()) };
      case 'release':
        if (!this.exit) throw new ProtocolError('not_running', 'the game is still running; there is no exit to release', id);
        // The reply is written first: the shim's shutdown ends connections only after what they hold.
        this.send(socket, { id, type: 'ok' }, Infinity);
        this.options.onRelease();
        return null;
    }
  }

  private attach(socket: Socket, id: number, tail: number): void {
    const replay = this.ring.tail(tail);
    this.send(socket, { id, type: 'attached', replayed: replay.length });
    for (const line of replay) this.send(socket, { type: 'line', line }, Infinity);
    // After an exit nothing more will come: the reader hears the end at once.
    if (this.exit) this.send(socket, { type: 'exit', exit: this.exit }, Infinity);
    // The replay is bounded by the ring; the slack applies to what comes after it.
    else this.attached.set(socket, socket.writableLength + MAX_BUFFERED_BYTES);
  }

  private input(id: number, line: string): void {
    const game = this.slot?.kind === 'process' ? this.slot.game : null;
    try {
      if (!game) throw new GameNotRunningError('the game never ran');
      game.write(line);
    } catch (error) {
      if (error instanceof GameNotRunningError) throw new ProtocolError('not_running', error.message, id);
      throw error;
    }
  }

  /** Runs a stop or kill and answers once the exit is on disk and announced, so replies never race `exit.json`. */
  private async whenGame(action: (game: GameProcess) => Promise<GameExit>): Promise<GameExit> {
    if (this.exit) return this.exit;
    if (this.slot?.kind !== 'process') throw new ProtocolError('not_running', 'the game has not started');
    await action(this.slot.game);
    return this.announced;
  }

  private send(socket: Socket, message: ShimMessage, limit = MAX_BUFFERED_BYTES): void {
    if (!socket.writable) return;
    if (socket.writableLength > limit) {
      this.options.log('client_too_slow', { buffered: socket.writableLength });
      socket.destroy();
      return;
    }
    socket.write(encodeFrame(message));
  }
}
