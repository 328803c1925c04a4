import { isNullableString, isObject, isPositiveInt, isStringArray, isStringRecord } from './guards.js';

/**
 * How to run one game process. `env` is the whole environment of the game: nothing is inherited
 * from the Agent, so the Agent's own secrets never leak into a game server.
 */
export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Typed into stdin to ask for a graceful stop; null goes straight to SIGTERM. */
  stopCommand: string | null;
  /** How long the stop command gets before SIGTERM. */
  stopTimeoutMs: number;
  /** How long SIGTERM gets before SIGKILL. */
  termTimeoutMs: number;
}

/** What the shim must know of a boxed game (its command already holds the box): how to find it, and its cgroup. */
export interface ShimBox {
  /** The command runs bubblewrap, which names the box's first process on fd 3. */
  view: boolean;
  /** Where the kernel counts the group's OOM kills; null without a memory limit. */
  oomFile: string | null;
  /** The group's directories, removed after the game's exit. */
  cgroupDirs: string[];
}

/** What the shim reads from `launch.json`: the game plus the shim's own limits. */
export interface ShimConfig {
  serverId: string;
  launch: LaunchSpec;
  /** Absent for a game run unboxed. */
  box?: ShimBox;
  /** Console lines kept for replay. */
  consoleLines: number;
  /** How long the shim waits, after the game exits, for the Agent to collect the exit before leaving. */
  lingerMs: number;
}

export class LaunchSpecError extends Error {
  override readonly name = 'LaunchSpecError';
}

export function parseLaunchSpec(value: unknown): LaunchSpec {
  if (!isObject(value)) throw new LaunchSpecError('launch spec must be an object');
  const { command, args, cwd, env, stopCommand, stopTimeoutMs, termTimeoutMs } = value;
  if (typeof command !== 'string' || command.length === 0) throw new LaunchSpecError('command must be a non-empty string');
  if (!isStringArray(args)) throw new LaunchSpecError('args must be an array of strings');
  if (typeof cwd !== 'string' || cwd.length === 0) throw new LaunchSpecError('cwd must be a non-empty string');
  if (!isStringRecord(env)) throw new LaunchSpecError('env must map names to strings');
  if (!isNullableString(stopCommand) || (stopCommand !== null && /[\r\n]/.test(stopCommand))) {
    throw new LaunchSpecError('stopCommand must be one line or null');
  }
  if (!isPositiveInt(stopTimeoutMs)) throw new LaunchSpecError('stopTimeoutMs must be a positive integer');
  if (!isPositiveInt(termTimeoutMs)) throw new LaunchSpecError('termTimeoutMs must be a positive integer');
  return { command, args, cwd, env, stopCommand, stopTimeoutMs, termTimeoutMs };
}

export function parseShimConfig(value: unknown): ShimConfig {
  if (!isObject(value)) throw new LaunchSpecError('shim config must be an object');
  const { serverId, launch, consoleLines, lingerMs, box } = value;
  if (typeof serverId !== 'string' || serverId.length === 0) throw new LaunchSpecError('serverId must be a non-empty string');
  if (!isPositiveInt(consoleLines)) throw new LaunchSpecError('consoleLines must be a positive integer');
  if (!isPositiveInt(lingerMs)) throw new LaunchSpecError('lingerMs must be a positive integer');
  return { serverId, launch: parseLaunchSpec(launch), consoleLines, lingerMs, ...(box === undefined ? {} : { box: parseShimBox(box) }) };
}

function parseShimBox(value: unknown): ShimBox {
  if (!isObject(value)) throw new LaunchSpecError('box must be an object');
  const { view, oomFile, cgroupDirs } = value;
  if (typeof view !== 'boolean') throw new LaunchSpecError('box.view must be a boolean');
  if (!isNullableString(oomFile)) throw new LaunchSpecError('box.oomFile must be a path or null');
  if (!isStringArray(cgroupDirs)) throw new LaunchSpecError('box.cgroupDirs must be paths');
  return { view, oomFile, cgroupDirs };
}
