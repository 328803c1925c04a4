import type { LaunchSpec, ShimBox } from './launch-spec.js';
import type { ProcessUsage } from './process-usage.js';
import type { OutputLine, GameExit } from './shim-protocol.js';

export type { OutputLine, GameExit, LaunchSpec, ProcessUsage };

/** What the Agent keeps of a run once its game exited: the exit and the end of its console. */
export interface LastRun {
  exit: GameExit;
  lines: readonly OutputLine[];
}

/** What the runtime knows about one server's game process. */
export type RuntimeStatus =
  | { state: 'absent' }
  /** `pid` is the game's own process (inside its box when boxed); `gamePid` is what the shim spawned. */
  | { state: 'running' | 'stopping'; shimPid: number; gamePid: number; pid: number; startedAt: string }
  | { state: 'exited'; exit: GameExit; startedAt: string | null };

/** Why an attached console stream ended: the game exited, or the shim went away. */
export type AttachEnd = { kind: 'exit'; exit: GameExit } | { kind: 'lost' };

export interface AttachOptions {
  /** Lines replayed from the ring buffer before live lines. */
  tail: number;
  onEnd?: (end: AttachEnd) => void;
  /** Hears how many lines the replay holds, once the shim accepted the reader (they follow as lines). */
  onAttached?: (replayed: number) => void;
}

/** One server's adoption: a status, or why its shim could not be read. */
export type AdoptOutcome = { ok: true; status: RuntimeStatus } | { ok: false; error: Error };

/** Hears a game's exit with the last lines of its console (none when they could not be read). */
export type ExitListener = (serverId: string, exit: GameExit, lastLines: readonly OutputLine[]) => void;

/** Hears which file of an exit could not be recorded, and why. */
export type RecordFailureListener = (serverId: string, path: string, error: unknown) => void;

/**
 * The Agent's view of game processes, after Wings' environment interface. Exits reach `onExit`
 * once each: from a live shim, from a shim found after an Agent restart, or from the state dir
 * when the shim is gone; an exit already reported (to this Agent or an earlier one) is not again.
 */
export interface ServerRuntime {
  start(serverId: string, spec: LaunchSpec, box?: ShimBox): Promise<RuntimeStatus>;
  adopt(serverId: string): Promise<RuntimeStatus>;
  adoptAll(): Promise<Map<string, AdoptOutcome>>;
  stop(serverId: string, options?: { timeoutMs?: number }): Promise<GameExit>;
  kill(serverId: string): Promise<GameExit>;
  sendCommand(serverId: string, line: string): Promise<void>;
  attach(serverId: string, options: AttachOptions, onLine: (line: OutputLine) => void): Promise<() => void>;
  status(serverId: string): Promise<RuntimeStatus>;
  usage(serverId: string): Promise<ProcessUsage | null>;
  onExit(listener: ExitListener): () => void;
  /** An exit that went to `onExit` but could not be recorded on disk (e.g. ENOSPC): which file, and why. */
  onRecordFailed(listener: RecordFailureListener): () => void;
  /** The server's last ended run while this Agent runs (its console outlives the game), until the next start. */
  lastRun(serverId: string): LastRun | undefined;
  /** Lets go of every shim without stopping any game (the Agent is shutting down). */
  close(): void;
}
