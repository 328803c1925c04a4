import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../../shared/clock.js';
import { findBoxedGame, signalOfBoxExit } from './boxed-game.js';
import type { LaunchSpec, ShimBox } from './launch-spec.js';
import { LineSplitter, MAX_LINE_BYTES } from './line-splitter.js';
import { signalGroup } from './process-control.js';
import type { ConsoleStream, GameExit, StopStep } from './shim-protocol.js';

/** How long output still in the pipes may take to drain after the game exits. */
const DRAIN_AFTER_EXIT_MS = 1000;

export type GamePhase = { state: 'running' } | { state: 'stopping'; step: StopStep } | { state: 'exited'; exit: GameExit };

export class GameNotRunningError extends Error {
  override readonly name = 'GameNotRunningError';
}

type GameChild = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * The game process as the shim sees it: it owns the game's pipes, turns its output into lines,
 * and escalates a stop from the stop command to SIGTERM to SIGKILL.
 */
export class GameProcess {
  private current: GamePhase = { state: 'running' };
  private killRequested = false;
  /** Set when the kernel reports the exit, before the output has drained: no new stop may begin. */
  private exitObserved = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private stdinBroken = false;
  readonly exited: Promise<GameExit>;
  private settle!: (exit: GameExit) => void;

  /** In a box: the group the game's processes share (led by the box's first process), signalled for stops. */
  private boxGroup: number | null = null;
  /** In a box: the game's own pid on the host; otherwise the spawned process is the game. */
  private gamePid: number;

  private constructor(
    private readonly child: GameChild,
    readonly pid: number,
    private readonly spec: LaunchSpec,
    private readonly clock: Clock,
    private readonly boxed: boolean,
  ) {
    this.exited = new Promise((resolve) => (this.settle = resolve));
    this.gamePid = pid;
  }

  /** Spawns the game; a game that cannot be spawned comes back already exited (`spawn_failed`). */
  static async spawn(
    spec: LaunchSpec,
    clock: Clock,
    onLine: (stream: ConsoleStream, text: string, truncated: boolean) => void,
    box?: ShimBox,
  ): Promise<GameProcess | GameExit> {
    const viewed = box?.view === true;
    // A session of its own makes the game the leader of a process group the shim can signal whole.
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd, env: spec.env, stdio: viewed ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'], detached: true,
    }) as GameChild;
    if (child.pid === undefined) {
      const [error] = (await once(child, 'error')) as [Error];
      return { code: null, signal: null, at: clock.now().toISOString(), cause: 'spawn_failed', error: error.message };
    }
    const game = new GameProcess(child, child.pid, spec, clock, viewed);
    game.wire(onLine);
    if (viewed) {
      const found = await findBoxedGame(child.stdio[3] as Readable, game.exited);
      if (found) {
        game.boxGroup = found.group;
        game.gamePid = found.gamePid;
      }
    }
    return game;
  }

  /** The game's own process id (inside a box, not the box's monitor). */
  get innerPid(): number {
    return this.gamePid;
  }

  get phase(): GamePhase {
    return this.current;
  }

  /** Types one line into the game's stdin. */
  write(line: string): void {
    if (this.exitObserved || this.stdinBroken || !this.child.stdin.writable) {
      throw new GameNotRunningError('the game is not reading input');
    }
    this.child.stdin.write(`${line}\n`);
  }

  /** Stop command, then SIGTERM, then SIGKILL; a second call joins the first. */
  stop(timeoutMs: number | null): Promise<GameExit> {
    if (this.current.state !== 'running' || this.exitObserved) return this.exited;
    if (this.spec.stopCommand === null || !this.tryWrite(this.spec.stopCommand)) {
      this.escalateToTerm();
      return this.exited;
    }
    this.current = { state: 'stopping', step: 'command' };
    this.after(timeoutMs ?? this.spec.stopTimeoutMs, () => this.escalateToTerm());
    return this.exited;
  }

  kill(): Promise<GameExit> {
    if (!this.exitObserved) {
      this.killRequested = true;
      this.signal('SIGKILL');
    }
    return this.exited;
  }

  /**
   * A box's monitor takes a signal's default action and its death kills the box at once, so a
   * stop signal goes to the game's group inside only; SIGKILL goes to both.
   */
  private signal(signal: NodeJS.Signals): void {
    if (this.boxGroup !== null) signalGroup(this.boxGroup, signal);
    if (this.boxGroup === null || signal === 'SIGKILL') signalGroup(this.pid, signal);
  }

  private tryWrite(line: string): boolean {
    try {
      this.write(line);
      return true;
    } catch (error) {
      if (error instanceof GameNotRunningError) return false;
      throw error;
    }
  }

  private escalateToTerm(): void {
    if (this.exitObserved) return;
    this.current = { state: 'stopping', step: 'sigterm' };
    this.signal('SIGTERM');
    this.after(this.spec.termTimeoutMs, () => {
      if (this.exitObserved) return;
      this.current = { state: 'stopping', step: 'sigkill' };
      this.signal('SIGKILL');
    });
  }

  private after(ms: number, action: () => void): void {
    this.timers.push(setTimeout(action, ms));
  }

  private wire(onLine: (stream: ConsoleStream, text: string, truncated: boolean) => void): void {
    const stdout = new LineSplitter(MAX_LINE_BYTES, (text, truncated) => onLine('stdout', text, truncated));
    const stderr = new LineSplitter(MAX_LINE_BYTES, (text, truncated) => onLine('stderr', text, truncated));
    this.child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // EPIPE once the game has closed its stdin: later writes report not running.
    this.child.stdin.on('error', () => (this.stdinBroken = true));
    this.child.once('exit', (code, signal) => {
      this.exitObserved = true;
      void this.finish(code, signal, () => {
        stdout.flush();
        stderr.flush();
      });
    });
  }

  private async finish(code: number | null, signal: NodeJS.Signals | null, flush: () => void): Promise<void> {
    const at = this.clock.now().toISOString();
    const exit = this.describeExit(code, signal, at);
    for (const timer of this.timers) clearTimeout(timer);
    // A grandchild may hold the pipes open forever; the exit is not held hostage to it.
    const drained = once(this.child, 'close');
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_AFTER_EXIT_MS).unref());
    await Promise.race([drained, deadline]);
    this.child.stdout.destroy();
    this.child.stderr.destroy();
    this.child.stdin.destroy();
    flush();
    this.current = { state: 'exited', exit };
    this.settle(exit);
  }

  private describeExit(exitCode: number | null, exitSignal: NodeJS.Signals | null, at: string): GameExit {
    // bubblewrap passes a game's death by signal on as the shell's 128 + signal number.
    const boxSignal = this.boxed && exitSignal === null ? signalOfBoxExit(exitCode) : null;
    const base = boxSignal ? { code: null, signal: boxSignal, at } : { code: exitCode, signal: exitSignal, at };
    if (this.killRequested) return { ...base, cause: 'killed' };
    if (this.current.state === 'stopping') return { ...base, cause: 'stopped', stoppedBy: this.current.step };
    return { ...base, cause: 'exited' };
  }
}
