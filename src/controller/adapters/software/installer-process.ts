import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../../../shared/logger.js';

/** How the installer ran: its exit, or why it was stopped, and the last lines it printed. */
export interface InstallerExit {
  /** `exit code N`, `killed by SIGTERM`, `did not finish within N s`, or `could not start: …`; none when it exited 0. */
  failure?: string;
  lastLines: string[];
  durationMs: number;
  sandboxed: boolean;
}

const keptLines = 15;

let bwrapWorks: boolean | undefined;

/**
 * Whether bubblewrap can make a sandbox here (installed, and user namespaces allowed): asked
 * once, by running `true` in the sandbox the installer would get.
 */
function sandboxAvailable(): boolean {
  bwrapWorks ??= spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return bwrapWorks;
}

/**
 * The command that runs `java -jar <jar> --installServer <dir>` in `dir`. Under bubblewrap
 * everything is read-only but `dir` (and an empty `/tmp`), so the installer writes nowhere else;
 * the network stays, as real installers download their libraries. Its environment holds no
 * Controller setting (no store URI, no secret): only PATH, the locale and HOME in `dir`.
 */
function command(java: string, jar: string, dir: string, sandbox: boolean): { file: string; args: string[] } {
  const run = [java, '-jar', jar, '--installServer', dir];
  if (!sandbox) return { file: run[0], args: run.slice(1) };
  return { file: 'bwrap', args: ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', dir, dir, '--chdir', dir, '--die-with-parent', '--', ...run] };
}

/**
 * Runs an installer in `dir` (which holds its jar) within `deadlineMs`, logging its output (at
 * debug) and keeping its last lines for the refusal when it fails. At the deadline its whole
 * process group is killed.
 */
export async function runInstallerProcess(options: { java: string; jar: string; dir: string; deadlineMs: number; logger: Logger }): Promise<InstallerExit> {
  const sandboxed = sandboxAvailable();
  const { file, args } = command(options.java, options.jar, options.dir, sandboxed);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.dir, LANG: process.env.LANG ?? 'C.UTF-8' };
  const started = Date.now();
  const lastLines: string[] = [];
  const child = spawn(file, args, { cwd: options.dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const keep = (line: string) => {
    options.logger.debug({ event: 'installer_output', line }, line);
    lastLines.push(line);
    if (lastLines.length > keptLines) lastLines.shift();
  };
  const outputs = [child.stdout, child.stderr].map((stream) => new Promise<void>((resolve) => {
    createInterface({ input: stream }).on('line', keep).on('close', resolve);
  }));
  const deadline = { passed: false };
  const timer = setTimeout(() => {
    deadline.passed = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, options.deadlineMs);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timer);
  if (!exit.error) await Promise.all(outputs);
  const failure = exit.error ? `could not start ${file}: ${exit.error.message}`
    : deadline.passed ? `did not finish within ${Math.round(options.deadlineMs / 1000)} s`
      : exit.code !== 0 ? (exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`) : undefined;
  return { ...(failure ? { failure } : {}), lastLines, durationMs: Date.now() - started, sandboxed };
}
