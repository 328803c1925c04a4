import { spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { programCommand, type ProgramCommand } from '../../shared/programs.js';
import { isRuntimeError, RuntimeError } from './errors.js';
import { ShimConnection } from './shim-connection.js';
import { SHIM_BUSY_EXIT_CODE } from './shim-protocol.js';
import { socketPathFor, stateFiles } from './state-dir.js';

const START_POLL_MS = 20;

export interface LaunchedShim {
  pid: number;
  /** Settles if the shim exits while this Agent is still its parent (a failed start shows here). */
  exited: Promise<number | null>;
  /** SIGKILLs the shim unless it has already exited: its pid, once reaped, may name a stranger. */
  kill(): void;
}

/** The shim needs no secrets of the Agent's: only what locating programs and temp files takes. */
function shimEnvironment(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
  return Object.fromEntries(keep.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
}

/**
 * Starts the shim in a session of its own, its output in `shim.log` and no pipe to the Agent, so
 * the Agent can exit or crash without touching it.
 */
export async function launchShim(stateDir: string, command: ProgramCommand = programCommand('shim')): Promise<LaunchedShim> {
  const log = await open(join(stateDir, stateFiles.log), 'w', 0o600);
  try {
    const child = spawn(command.command, [...command.args, stateDir], {
      cwd: stateDir,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      env: shimEnvironment(),
    });
    if (child.pid === undefined) {
      throw await new Promise<Error>((resolve) => child.once('error', resolve));
    }
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.unref();
    return { pid: child.pid, exited, kill: () => void child.kill('SIGKILL') };
  } finally {
    await log.close();
  }
}

/**
 * Launches the shim and returns a connection once its socket answers as the shim launched (its
 * status names its pid). A connection closed before that (a shim that listened, then died starting
 * the game) is not returned: the wait goes on until the shim's exit shows, and the start fails with
 * its exit code and the tail of its log rather than with a closed connection.
 */
export async function startShim(stateDir: string, command: ProgramCommand, timeoutMs: number): Promise<ShimConnection> {
  const shim = await launchShim(stateDir, command);
  let exitCode: number | null | undefined;
  void shim.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  const path = socketPathFor(stateDir, shim.pid);
  for (;;) {
    if (exitCode === SHIM_BUSY_EXIT_CODE) throw new RuntimeError('shim_busy', 'another shim serves this server\'s state dir');
    if (exitCode !== undefined) {
      throw new RuntimeError('shim_unavailable', `the shim exited during start (code ${exitCode}): ${await logTail(stateDir)}`);
    }
    try {
      const conn = await ShimConnection.open(path, Math.max(1, deadline - Date.now()));
      if (await servedBy(conn, shim.pid, deadline)) return conn;
      conn.close();
    } catch (error) {
      if (!isRuntimeError(error, 'shim_unavailable')) throw error;
    }
    if (Date.now() >= deadline) {
      shim.kill();
      throw new RuntimeError('timeout', `the shim did not answer within ${timeoutMs} ms: ${await logTail(stateDir)}`);
    }
    await sleep(START_POLL_MS);
  }
}

/** Whether the shim that answers on `conn` is the one with `pid`; a connection closed before it said counts as another's. */
async function servedBy(conn: ShimConnection, pid: number, deadline: number): Promise<boolean> {
  try {
    return (await conn.request({ type: 'status' }, Math.max(1, deadline - Date.now()))).status.shimPid === pid;
  } catch (error) {
    if (isRuntimeError(error, 'shim_unavailable')) return false;
    throw error;
  }
}

async function logTail(stateDir: string): Promise<string> {
  try {
    return (await readFile(join(stateDir, stateFiles.log), 'utf8')).slice(-600).trim();
  } catch {
    return '(no shim log)';
  }
}
