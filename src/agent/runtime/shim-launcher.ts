import { spawn } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { isRuntimeError, RuntimeError } from './errors.js';
import { ShimConnection } from './shim-connection.js';
import { socketPathFor, stateFiles } from './state-dir.js';

const START_POLL_MS = 20;

export interface ShimCommand {
  command: string;
  args: string[];
}

/**
 * How to run `shim-main`: from the built `.js` next to this module in production, or from the
 * TypeScript source through tsx when this module itself is running from source (tests, dev).
 * tsx is resolved to an absolute path because the shim's cwd is the state dir, not the repo.
 */
export function shimCommand(moduleUrl: string = import.meta.url): ShimCommand {
  if (moduleUrl.endsWith('.ts')) {
    const tsx = createRequire(moduleUrl).resolve('tsx');
    return { command: process.execPath, args: ['--import', tsx, fileURLToPath(new URL('./shim-main.ts', moduleUrl))] };
  }
  return { command: process.execPath, args: [fileURLToPath(new URL('./shim-main.js', moduleUrl))] };
}

export interface LaunchedShim {
  pid: number;
  /** Settles if the shim exits while this Agent is still its parent (a failed start shows here). */
  exited: Promise<number | null>;
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
export async function launchShim(stateDir: string, command: ShimCommand = shimCommand()): Promise<LaunchedShim> {
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
    return { pid: child.pid, exited };
  } finally {
    await log.close();
  }
}

/** Launches the shim and returns a connection once its socket answers. */
export async function startShim(stateDir: string, command: ShimCommand, timeoutMs: number): Promise<ShimConnection> {
  const shim = await launchShim(stateDir, command);
  let exitCode: number | null | undefined;
  void shim.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  const path = socketPathFor(stateDir, shim.pid);
  for (;;) {
    if (exitCode !== undefined) {
      throw new RuntimeError('shim_unavailable', `the shim exited during start (code ${exitCode}): ${await logTail(stateDir)}`);
    }
    try {
      return await ShimConnection.open(path, Math.max(1, deadline - Date.now()));
    } catch (error) {
      if (!isRuntimeError(error, 'shim_unavailable')) throw error;
    }
    if (Date.now() >= deadline) {
      process.kill(shim.pid, 'SIGKILL');
      throw new RuntimeError('timeout', `the shim did not answer within ${timeoutMs} ms: ${await logTail(stateDir)}`);
    }
    await sleep(START_POLL_MS);
  }
}

async function logTail(stateDir: string): Promise<string> {
  try {
    return (await readFile(join(stateDir, stateFiles.log), 'utf8')).slice(-600).trim();
  } catch {
    return '(no shim log)';
  }
}
