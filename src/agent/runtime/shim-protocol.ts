import {
  isNonNegativeInt,
  isNullableInt,
  isNullableString,
  isObject,
  isPositiveInt,
  type JsonObject,
} from './guards.js';
import { commandTooLong } from '../../shared/console-limits.js';

/**
 * The Agent ↔ shim protocol: newline-delimited JSON over `shim.sock`. Requests carry an `id` the
 * reply repeats; events (`line`, `exit`) carry none. Both sides validate every frame they read.
 */

export type StopStep = 'command' | 'sigterm' | 'sigkill';

interface ExitBase {
  code: number | null;
  signal: string | null;
  /** ISO-8601 time the exit was observed. */
  at: string;
  /** The kernel killed the game for going past its memory limit (boxed games only). */
  oomKilled?: boolean;
}

/** Why the game is gone: `exited` on its own (a crash unless it was code 0), or at someone's request. */
export type GameExit = ExitBase &
  (
    | { cause: 'exited' }
    | { cause: 'stopped'; stoppedBy: StopStep }
    | { cause: 'killed' }
    | { cause: 'spawn_failed'; error: string }
    | { cause: 'shim_lost' }
  );

export type ConsoleStream = 'stdout' | 'stderr';

export interface OutputLine {
  /** Increases by one per line over the shim's life; a gap tells a reader lines were missed. */
  seq: number;
  stream: ConsoleStream;
  text: string;
  /** The line was longer than the 16 KiB limit and was cut. */
  truncated: boolean;
  /** When the shim read the line (ms since the epoch); absent from shims older than this field. */
  at?: number;
}

interface StatusBase {
  serverId: string;
  shimPid: number;
  startedAt: string;
}

/**
 * A game that could not be spawned has exited without ever having a pid. `gamePid` is the process
 * the shim spawned; in a box that is the box's monitor, and `innerPid` the game itself.
 */
export type ShimStatus = StatusBase & { innerPid?: number } &
  ({ state: 'running' | 'stopping'; gamePid: number } | { state: 'exited'; gamePid: number | null; exit: GameExit });

export type ShimRequest =
  | { id: number; type: 'status' }
  /** Replays the last `tail` lines, then streams new ones on this connection until it closes. */
  | { id: number; type: 'attach'; tail: number }
  | { id: number; type: 'input'; line: string }
  | { id: number; type: 'stop'; timeoutMs: number | null }
  | { id: number; type: 'kill' }
  /** The Agent has recorded the exit: the shim may leave now. */
  | { id: number; type: 'release' };

export type ShimErrorCode = 'malformed' | 'invalid_request' | 'not_running' | 'frame_too_long';

export type ShimReply =
  | { id: number; type: 'status'; status: ShimStatus }
  | { id: number; type: 'attached'; replayed: number }
  | { id: number; type: 'ok' }
  | { id: number; type: 'exited'; exit: GameExit }
  | { id: number | null; type: 'error'; code: ShimErrorCode; message: string };

export type ShimEvent = { type: 'line'; line: OutputLine } | { type: 'exit'; exit: GameExit };

export type ShimMessage = ShimReply | ShimEvent;

/** Longest frame either side accepts: a cut console line JSON-escaped fits with room to spare. */
export const MAX_FRAME_BYTES = 256 * 1024;

/** The exit code of a shim that found another shim serving its state dir: a refusal, not a failure. */
export const SHIM_BUSY_EXIT_CODE = 75;

export function encodeFrame(message: ShimRequest | ShimMessage): string {
  return `${JSON.stringify(message)}\n`;
}

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: ShimErrorCode,
    message: string,
    readonly requestId: number | null = null,
  ) {
    super(message);
  }
}

function parseJson(frame: string): unknown {
  try {
    return JSON.parse(frame);
  } catch {
    throw new ProtocolError('malformed', 'frame is not JSON');
  }
}

export function parseRequest(frame: string): ShimRequest {
  const value = parseJson(frame);
  if (!isObject(value)) throw new ProtocolError('malformed', 'frame is not an object');
  const { id, type } = value;
  if (!isNonNegativeInt(id)) throw new ProtocolError('invalid_request', 'id must be a non-negative integer');
  const fail = (message: string) => new ProtocolError('invalid_request', message, id);
  switch (type) {
    case 'status':
    case 'kill':
    case 'release':
      return { id, type };
    case 'attach':
      if (!isNonNegativeInt(value.tail)) throw fail('tail must be a non-negative integer');
      return { id, type, tail: value.tail };
    case 'input': {
      const { line } = value;
      if (typeof line !== 'string') throw fail('line must be a string');
      if (/[\r\n]/.test(line)) throw fail('line must not contain a line break');
      if (commandTooLong(line)) throw fail('line is too long');
      return { id, type, line };
    }
    case 'stop': {
      const timeoutMs = value.timeoutMs ?? null;
      if (timeoutMs !== null && !isPositiveInt(timeoutMs)) throw fail('timeoutMs must be a positive integer or null');
      return { id, type, timeoutMs };
    }
    default:
      throw fail('unknown request type');
  }
}

function isStopStep(value: unknown): value is StopStep {
  return value === 'command' || value === 'sigterm' || value === 'sigkill';
}

function isShimErrorCode(value: unknown): value is ShimErrorCode {
  return value === 'malformed' || value === 'invalid_request' || value === 'not_running' || value === 'frame_too_long';
}

/** Reads an `exit.json` or the exit inside a frame. */
export function parseGameExit(value: unknown): GameExit {
  if (!isObject(value)) throw new ProtocolError('malformed', 'exit must be an object');
  const { code, signal, at, cause } = value;
  if (!isNullableInt(code) || !isNullableString(signal) || typeof at !== 'string') {
    throw new ProtocolError('malformed', 'exit needs code, signal and at');
  }
  if (value.oomKilled !== undefined && typeof value.oomKilled !== 'boolean') throw new ProtocolError('malformed', 'oomKilled must be a boolean');
  const base = { code, signal, at, ...(value.oomKilled ? { oomKilled: true } : {}) };
  switch (cause) {
    case 'exited':
    case 'killed':
    case 'shim_lost':
      return { ...base, cause };
    case 'stopped': {
      const { stoppedBy } = value;
      if (!isStopStep(stoppedBy)) throw new ProtocolError('malformed', 'bad stoppedBy');
      return { ...base, cause, stoppedBy };
    }
    case 'spawn_failed':
      if (typeof value.error !== 'string') throw new ProtocolError('malformed', 'spawn_failed needs error');
      return { ...base, cause, error: value.error };
    default:
      throw new ProtocolError('malformed', 'unknown exit cause');
  }
}

function parseStatus(value: unknown): ShimStatus {
  if (!isObject(value)) throw new ProtocolError('malformed', 'status must be an object');
  const { serverId, shimPid, gamePid, startedAt, state } = value;
  if (typeof serverId !== 'string' || !isPositiveInt(shimPid) || !isNullableInt(gamePid) || typeof startedAt !== 'string') {
    throw new ProtocolError('malformed', 'status fields are wrong');
  }
  if (value.innerPid !== undefined && !isPositiveInt(value.innerPid)) throw new ProtocolError('malformed', 'innerPid must be a pid');
  const base = { serverId, shimPid, startedAt, ...(value.innerPid === undefined ? {} : { innerPid: value.innerPid }) };
  switch (state) {
    case 'running':
    case 'stopping':
      if (gamePid === null) throw new ProtocolError('malformed', 'a running game needs a pid');
      return { ...base, state, gamePid };
    case 'exited':
      return { ...base, state, gamePid, exit: parseGameExit(value.exit) };
    default:
      throw new ProtocolError('malformed', 'unknown status state');
  }
}

function parseLine(value: unknown): OutputLine {
  if (!isObject(value)) throw new ProtocolError('malformed', 'line must be an object');
  const { seq, stream, text, truncated, at } = value;
  if (!isNonNegativeInt(seq) || (stream !== 'stdout' && stream !== 'stderr') || typeof text !== 'string' || typeof truncated !== 'boolean') {
    throw new ProtocolError('malformed', 'line fields are wrong');
  }
  if (at !== undefined && !isNonNegativeInt(at)) throw new ProtocolError('malformed', 'line time is wrong');
  return { seq, stream, text, truncated, ...(at !== undefined ? { at } : {}) };
}

function parseReply(value: JsonObject, id: number): ShimReply {
  switch (value.type) {
    case 'status':
      return { id, type: 'status', status: parseStatus(value.status) };
    case 'attached':
      if (!isNonNegativeInt(value.replayed)) throw new ProtocolError('malformed', 'replayed must be a count');
      return { id, type: 'attached', replayed: value.replayed };
    case 'ok':
      return { id, type: 'ok' };
    case 'exited':
      return { id, type: 'exited', exit: parseGameExit(value.exit) };
    default:
      throw new ProtocolError('malformed', 'unknown reply type');
  }
}

export function parseMessage(frame: string): ShimMessage {
  const value = parseJson(frame);
  if (!isObject(value)) throw new ProtocolError('malformed', 'frame is not an object');
  const { id, type } = value;
  if (type === 'line') return { type, line: parseLine(value.line) };
  if (type === 'exit') return { type, exit: parseGameExit(value.exit) };
  if (type === 'error') {
    const { code, message } = value;
    if ((id !== null && !isNonNegativeInt(id)) || !isShimErrorCode(code) || typeof message !== 'string') {
      throw new ProtocolError('malformed', 'error fields are wrong');
    }
    return { id, type, code, message };
  }
  if (!isNonNegativeInt(id)) throw new ProtocolError('malformed', 'reply without id');
  return parseReply(value, id);
}
