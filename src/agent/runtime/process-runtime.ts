import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../shared/clock.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { programCommand, type ProgramCommand } from '../../shared/programs.js';
import { isRuntimeError, RuntimeError } from './errors.js';
import { parseLaunchSpec, parseShimConfig, type LaunchSpec, type ShimBox, type ShimConfig } from './launch-spec.js';
import { ExitReports } from './exit-reports.js';
import { readEndOfConsole } from './last-run.js';
import { readProcessUsage, type ProcessUsage } from './process-usage.js';
import { readConsole } from './console-reader.js';
import type {
  AdoptOutcome,
  AttachOptions,
  OutputLine,
  ExitListener,
  GameExit,
  LastRun,
  RecordFailureListener,
  RuntimeStatus,
  ServerRuntime,
} from './runtime-types.js';
import { ShimConnection } from './shim-connection.js';
import { startShim } from './shim-launcher.js';
import { absentIfHung } from './hung-shim.js';
import type { ShimStatus } from './shim-protocol.js';
import {
  isValidServerId,
  perRunFiles,
  readJsonFile,
  readPidFile,
  removeFiles,
  socketPathFor,
  stateDirFor,
  stateFiles,
  writeFileAtomic,
} from './state-dir.js';

export interface ProcessRuntimeOptions {
  /** The Agent's data dir; each server's state lives in `<dataDir>/servers/<id>/state/`. */
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
  /** Console lines each shim keeps for replay. */
  consoleLines?: number;
  /** How long a shim waits after its game exits for an Agent to collect the exit. */
  lingerMs?: number;
  shimStartTimeoutMs?: number;
  /** Deadline of quick requests (status, input, attach, release). */
  requestTimeoutMs?: number;
  shimCommand?: ProgramCommand;
}

/** Added to a stop's own timeouts for the reply's deadline: the SIGKILL step and the exit record. */
const STOP_DEADLINE_MARGIN_MS = 10_000;
const KILL_DEADLINE_MS = 15_000;

interface LiveShim {
  conn: ShimConnection;
  stateDir: string;
  launch: LaunchSpec;
  shimPid: number;
  gamePid: number | null;
  /** The game itself when it runs in a box (gamePid is then the box's monitor). */
  innerPid: number | null;
  /** Set once an exit is being reported, so the exit event and a status poll report it once. */
  exitHandling: Promise<void> | null;
  closed: Promise<void>;
}

/**
 * The Agent's runtime: one detached shim per server, reached over its unix socket. The Agent may
 * drop this object (or die) at any time; a new one adopts every shim it finds in the data dir.
 */
export class ProcessRuntime implements ServerRuntime {
  private readonly live = new Map<string, LiveShim>();
  /** Console readers, each on a connection of its own. */
  private readonly readers = new Set<ShimConnection>();
  private readonly exits: ExitReports;
  /** One start or adoption per server at a time; the chain continues past a failure. */
  private readonly locks = new KeyedMutex();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly consoleLines: number;
  private readonly lingerMs: number;
  private readonly shimStartTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly shimCommand: ProgramCommand;

  constructor(private readonly options: ProcessRuntimeOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.consoleLines = options.consoleLines ?? 2000;
    this.lingerMs = options.lingerMs ?? 60_000;
    this.shimStartTimeoutMs = options.shimStartTimeoutMs ?? 10_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
    this.shimCommand = options.shimCommand ?? programCommand('shim');
    this.exits = new ExitReports(this.logger, this.clock);
  }

  start(serverId: string, spec: LaunchSpec, box?: ShimBox): Promise<RuntimeStatus> {
    const stateDir = this.stateDir(serverId);
    const launch = parseLaunchSpec(spec);
    return this.locks.run(serverId, async () => {
      const current = await this.adoptUnlocked(serverId).catch((error: unknown) => absentIfHung(error, serverId, stateDir, this.live, this.logger));
      if (current.state === 'running' || current.state === 'stopping') {
        throw new RuntimeError('already_running', `server ${serverId} is already running`);
      }
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      await removeFiles(stateDir, perRunFiles);
      const config: ShimConfig = { serverId, launch, consoleLines: this.consoleLines, lingerMs: this.lingerMs, ...(box ? { box } : {}) };
      await writeFileAtomic(join(stateDir, stateFiles.config), JSON.stringify(config), 0o600, 'process-lifetime');
      const conn = await this.startShimOrAdopt(serverId, stateDir);
      this.exits.forget(serverId);
      return this.track(serverId, stateDir, conn, launch);
    });
  }

  /**
   * One shim per server: a new shim that finds another serving the state dir leaves at once, and
   * the game of the one serving is the server's (adopted here), never a second game beside it.
   */
  private async startShimOrAdopt(serverId: string, stateDir: string): Promise<ShimConnection> {
    try {
      return await startShim(stateDir, this.shimCommand, this.shimStartTimeoutMs);
    } catch (error) {
      if (!isRuntimeError(error, 'shim_busy')) throw error;
      const adopted = await this.adoptUnlocked(serverId);
      if (adopted.state === 'running' || adopted.state === 'stopping') {
        throw new RuntimeError('already_running', `server ${serverId} is already running (its shim was adopted)`);
      }
      throw error;
    }
  }

  adopt(serverId: string): Promise<RuntimeStatus> {
    this.stateDir(serverId);
    return this.locks.run(serverId, () => this.adoptUnlocked(serverId));
  }

  async adoptAll(): Promise<Map<string, AdoptOutcome>> {
    let entries;
    try {
      entries = await readdir(join(this.options.dataDir, 'servers'), { withFileTypes: true });
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return new Map();
      throw error;
    }
    const ids = entries.filter((entry) => entry.isDirectory() && isValidServerId(entry.name)).map((entry) => entry.name);
    const outcomes = await Promise.all(
      ids.map(async (serverId): Promise<[string, AdoptOutcome]> => {
        try {
          return [serverId, { ok: true, status: await this.adopt(serverId) }];
        } catch (error) {
          const reason = error instanceof Error ? error : new Error(String(error));
          this.logger.warn({ serverId, err: reason }, 'could not adopt the server');
          return [serverId, { ok: false, error: reason }];
        }
      }),
    );
    return new Map(outcomes);
  }

  status(serverId: string): Promise<RuntimeStatus> {
    return this.adopt(serverId);
  }

  /** Resolves once the game has exited, the exit went to `onExit`, and the shim was released. */
  async stop(serverId: string, options: { timeoutMs?: number } = {}): Promise<GameExit> {
    const live = await this.requireLiveOrExitReported(serverId);
    const timeoutMs = options.timeoutMs ?? null;
    const deadline = (timeoutMs ?? live.launch.stopTimeoutMs) + live.launch.termTimeoutMs + STOP_DEADLINE_MARGIN_MS;
    const { exit } = await live.conn.request({ type: 'stop', timeoutMs }, deadline);
    await this.handleExit(serverId, live, exit);
    return exit;
  }

  async kill(serverId: string): Promise<GameExit> {
    const live = await this.requireLiveOrExitReported(serverId);
    const { exit } = await live.conn.request({ type: 'kill' }, KILL_DEADLINE_MS);
    await this.handleExit(serverId, live, exit);
    return exit;
  }

  async sendCommand(serverId: string, line: string): Promise<void> {
    await this.requireLive(serverId).conn.request({ type: 'input', line }, this.requestTimeoutMs);
  }

  /**
   * A console reader on a connection of its own: the returned function closes it, which frees it
   * in the shim at once. `onEnd` hears the game's exit, or `lost` if the connection goes otherwise.
   */
  async attach(serverId: string, options: AttachOptions, onLine: (line: OutputLine) => void): Promise<() => void> {
    const live = this.requireLive(serverId);
    const conn = await ShimConnection.open(socketPathFor(live.stateDir, live.shimPid), this.requestTimeoutMs);
    this.readers.add(conn);
    conn.onClose(() => this.readers.delete(conn));
    return readConsole(conn, options, onLine, this.requestTimeoutMs);
  }

  async usage(serverId: string): Promise<ProcessUsage | null> {
    const live = this.live.get(serverId);
    const pid = live?.innerPid ?? live?.gamePid;
    return pid ? readProcessUsage(pid) : null;
  }

  lastRun(serverId: string): LastRun | undefined {
    return this.exits.lastRun(serverId);
  }

  onExit(listener: ExitListener): () => void {
    return this.exits.onExit(listener);
  }

  onRecordFailed(listener: RecordFailureListener): () => void {
    return this.exits.onRecordFailed(listener);
  }

  close(): void {
    for (const live of this.live.values()) live.conn.close();
    this.live.clear();
    for (const reader of this.readers) reader.close();
  }

  private stateDir(serverId: string): string {
    if (!isValidServerId(serverId)) throw new RuntimeError('invalid_server_id', `not a valid server id: ${JSON.stringify(serverId)}`);
    return stateDirFor(this.options.dataDir, serverId);
  }

  /**
   * A game whose exit is being collected is refused as not running only once that exit went to
   * `onExit`: a caller that goes on to start a new game must not hear the old one's exit later.
   */
  private async requireLiveOrExitReported(serverId: string): Promise<LiveShim> {
    const exiting = this.live.get(serverId)?.exitHandling;
    if (exiting) await exiting.catch(() => undefined);
    return this.requireLive(serverId);
  }

  private requireLive(serverId: string): LiveShim {
    const live = this.live.get(serverId);
    if (!live || live.exitHandling) throw new RuntimeError('not_running', `server ${serverId} is not running`);
    return live;
  }

  private async adoptUnlocked(serverId: string): Promise<RuntimeStatus> {
    const known = this.live.get(serverId);
    if (known) return this.refresh(serverId, known);
    const stateDir = this.stateDir(serverId);
    if (!(await exists(stateDir))) return { state: 'absent' };
    const shimPid = await readPidFile(join(stateDir, stateFiles.shimPid));
    try {
      const conn = await ShimConnection.open(socketPathFor(stateDir, shimPid), this.requestTimeoutMs);
      const config = parseShimConfig(await readJsonFile(join(stateDir, stateFiles.config)));
      return await this.track(serverId, stateDir, conn, config.launch);
    } catch (error) {
      if (!isRuntimeError(error, 'shim_unavailable')) throw error;
      return this.exits.settleFromFiles(serverId, stateDir);
    }
  }

  private async refresh(serverId: string, live: LiveShim): Promise<RuntimeStatus> {
    if (live.exitHandling) {
      await live.exitHandling;
      if (this.live.get(serverId) === live) this.live.delete(serverId);
      return this.adoptUnlocked(serverId);
    }
    const { status } = await this.requestStatus(live.conn);
    return this.fromShimStatus(serverId, live, status);
  }

  /** A connection that missed its answer is closed (which forgets its entry): the next call opens a fresh one instead of waiting on it again. */
  private async requestStatus(conn: ShimConnection) {
    try {
      return await conn.request({ type: 'status' }, this.requestTimeoutMs);
    } catch (error) {
      if (isRuntimeError(error, 'timeout')) conn.close();
      throw error;
    }
  }

  private async track(serverId: string, stateDir: string, conn: ShimConnection, launch: LaunchSpec): Promise<RuntimeStatus> {
    let markClosed!: () => void;
    const live: LiveShim = {
      conn,
      stateDir,
      launch,
      shimPid: 0,
      gamePid: null,
      innerPid: null,
      exitHandling: null,
      closed: new Promise((resolve) => (markClosed = resolve)),
    };
    conn.onEvent((event) => {
      if (event.type === 'exit') void this.handleExit(serverId, live, event.exit);
    });
    conn.onClose((closedByUs) => {
      markClosed();
      if (this.live.get(serverId) === live) this.live.delete(serverId);
      if (!closedByUs && !live.exitHandling) this.onShimLost(serverId);
    });
    // Registered before the first request, so an exit arriving meanwhile finds the entry it clears.
    this.live.set(serverId, live);
    let status: ShimStatus;
    try {
      ({ status } = await this.requestStatus(conn));
    } catch (error) {
      // A connection that closed before its listener above existed never hears its close: the entry would
      // outlive it, and every later call on the server would fail on the dead connection.
      if (this.live.get(serverId) === live) this.live.delete(serverId);
      conn.close();
      throw error;
    }
    if (status.serverId !== serverId) {
      conn.close();
      throw new RuntimeError('protocol', `the shim in ${stateDir} serves ${status.serverId}`);
    }
    live.shimPid = status.shimPid;
    live.gamePid = status.gamePid;
    live.innerPid = status.innerPid ?? null;
    return this.fromShimStatus(serverId, live, status);
  }

  private async fromShimStatus(serverId: string, live: LiveShim, status: ShimStatus): Promise<RuntimeStatus> {
    if (status.state !== 'exited') {
      return { state: status.state, shimPid: status.shimPid, gamePid: status.gamePid, pid: status.innerPid ?? status.gamePid, startedAt: status.startedAt };
    }
    await this.handleExit(serverId, live, status.exit);
    return { state: 'exited', exit: status.exit, startedAt: status.startedAt };
  }

  private handleExit(serverId: string, live: LiveShim, exit: GameExit): Promise<void> {
    live.exitHandling ??= this.collectExit(serverId, live, exit);
    return live.exitHandling;
  }

  /** Keeps the end of the console, reports the exit (once), marks it reported on disk, then lets the shim go. */
  private async collectExit(serverId: string, live: LiveShim, exit: GameExit): Promise<void> {
    const lines = await readEndOfConsole(socketPathFor(live.stateDir, live.shimPid), this.requestTimeoutMs);
    await this.exits.collected(serverId, live.stateDir, exit, lines);
    try {
      await live.conn.request({ type: 'release' }, this.requestTimeoutMs);
    } catch (error) {
      // The shim leaves by itself after its linger time; a failed release only delays that.
      this.logger.warn({ serverId, err: error }, 'the shim did not take the release');
    }
    live.conn.close();
    await live.closed;
    if (this.live.get(serverId) === live) this.live.delete(serverId);
  }

  private onShimLost(serverId: string): void {
    this.logger.warn({ serverId }, 'lost the connection to the shim');
    this.locks.run(serverId, () => this.exits.settleFromFiles(serverId, this.stateDir(serverId))).catch((error: unknown) => {
      this.logger.error({ serverId, err: error }, 'could not settle a lost shim');
    });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return false;
    throw error;
  }
}
