import { open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isNonNegativeInt, isObject, isPositiveInt } from './guards.js';

/**
 * One server's runtime state lives in `<dataDir>/servers/<id>/state/`. The shim runs with that
 * directory as its cwd and listens on the relative `shim.sock`, so the socket never hits the
 * unix path limit on the shim's side.
 */
export const stateFiles = {
  /** The shim's config and the game's launch spec (mode 0600: it may hold secrets). */
  config: 'launch.json',
  socket: 'shim.sock',
  shimPid: 'shim.pid',
  gamePid: 'game.pid',
  /** Pids with their kernel start times, so a reused pid is never mistaken for ours. */
  run: 'run.json',
  /** The game's exit, written by the shim (or by the Agent for a game that lost its shim). */
  exit: 'exit.json',
  /** An exit the Agent has already reported; kept for `status`. */
  reportedExit: 'last-exit.json',
  /** The shim's own stdout and stderr. */
  log: 'shim.log',
} as const;

/** Files that describe one run; removed before the next start. */
export const perRunFiles = [stateFiles.socket, stateFiles.shimPid, stateFiles.gamePid, stateFiles.run, stateFiles.exit, stateFiles.reportedExit];

const serverIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function isValidServerId(serverId: string): boolean {
  return serverIdPattern.test(serverId);
}

export function stateDirFor(dataDir: string, serverId: string): string {
  return join(dataDir, 'servers', serverId, 'state');
}

/** The kernel's sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The path the Agent connects to. A state dir too deep for sun_path is reached through the
 * shim's own cwd link in /proc, which is short and still names the same socket file.
 */
export function socketPathFor(stateDir: string, shimPid: number | null): string {
  const direct = join(stateDir, stateFiles.socket);
  if (Buffer.byteLength(direct) <= MAX_SOCKET_PATH_BYTES || shimPid === null) return direct;
  return `/proc/${shimPid}/cwd/${stateFiles.socket}`;
}

export interface RunRecord {
  serverId: string;
  shimPid: number;
  shimStartTicks: number;
  gamePid: number;
  gameStartTicks: number;
  startedAt: string;
}

export function parseRunRecord(value: unknown): RunRecord | null {
  if (!isObject(value)) return null;
  const { serverId, shimPid, shimStartTicks, gamePid, gameStartTicks, startedAt } = value;
  if (typeof serverId !== 'string' || typeof startedAt !== 'string') return null;
  if (!isPositiveInt(shimPid) || !isPositiveInt(gamePid) || !isNonNegativeInt(shimStartTicks) || !isNonNegativeInt(gameStartTicks)) return null;
  return { serverId, shimPid, shimStartTicks, gamePid, gameStartTicks, startedAt };
}

/** Temp file, fsync, rename: a reader sees the old content or the new, never half of it. */
/**
 * Writes by rename, so a reader sees the old content or the new, never half. A `process-lifetime`
 * record (a pid, a run, an exit) is not synced: no process it names survives the host going down,
 * and a sync waits behind every dirty write of the disk (seconds under a large copy), while the
 * Agent waits for the shim that makes it.
 */
export async function writeFileAtomic(path: string, content: string, mode = 0o600, durability: 'synced' | 'process-lifetime' = 'synced'): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(content);
      if (durability === 'synced') await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // A full disk must not be left fuller, nor the state dir strewn with halves.
    await rm(temp, { force: true });
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

/** The parsed file, or null when it does not exist; a corrupt file throws. */
export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export async function readPidFile(path: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export async function removeFiles(dir: string, names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => rm(join(dir, name), { force: true })));
}

/** Moves a file; false when it was not there (someone else moved it first). */
export async function moveIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}
