import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeGroup } from '../runtime/cgroup-files.js';
import type { CgroupLayout } from './cgroup-layout.js';

/** Every server's cgroup lives under this one, so the Agent's groups are easy to find and count. */
export const cgroupParent = 'cairn';
/** Enough for a JVM's threads and a plugin's pool, few enough that a fork bomb stops there. */
export const maxTasks = 4096;
/** The CFS period the CPU quota is a share of. */
const cpuPeriodUs = 100_000;

export interface CgroupLimits {
  memoryBytes: number;
  cpuMillis: number;
}

/** One server's cgroup on this host, as the shim joins, watches and removes it. */
export interface ServerCgroup {
  /** `cgroup.procs` files a process writes its pid into to join (one per v1 hierarchy). */
  procsFiles: string[];
  /** The group's directories, removed once the game is gone (deepest first is not needed: each is a leaf). */
  dirs: string[];
  /** Where the kernel counts OOM kills (v1 `memory.oom_control`, v2 `memory.events`); null without the memory controller. */
  oomFile: string | null;
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** A group's directory for a server under a hierarchy (v1) or the tree (v2). */
const groupDir = (mount: string, serverId: string) => join(mount, cgroupParent, serverId);

/** The directories of a server's group on this layout (a shared v1 mount, e.g. cpu,cpuacct, counts once). */
export function serverGroupDirs(layout: CgroupLayout, serverId: string): string[] {
  if (layout.version === 2) return [groupDir(layout.root, serverId)];
  const mounts = [layout.memory, layout.cpu, layout.cpuacct, layout.pids].filter((m): m is string => m !== null);
  return [...new Set(mounts)].map((mount) => groupDir(mount, serverId));
}

/** The CPU quota of a share of cores in microseconds per period (the kernel takes at least 1 ms). */
export const cpuQuotaUs = (cpuMillis: number) => Math.max(1000, Math.round((cpuMillis * cpuPeriodUs) / 1000));

/**
 * A fresh group for the server's next run with its limits written. A group left from an earlier
 * run is removed first so its OOM count starts at zero; one that still holds processes (a game
 * from before that somehow lives on) is reused with the new limits.
 */
export async function prepareServerGroup(layout: CgroupLayout, serverId: string, limits: CgroupLimits): Promise<ServerCgroup> {
  const dirs = serverGroupDirs(layout, serverId);
  if (layout.version === 2) await enableV2Controllers(layout.root);
  for (const dir of dirs) {
    await removeGroup(dir);
    await mkdir(dir, { recursive: true });
  }
  const tasks = String(maxTasks);
  const memory = String(limits.memoryBytes);
  if (layout.version === 2) {
    const [dir] = dirs;
    await writeFile(join(dir, 'memory.max'), memory);
    await writeOptional(join(dir, 'memory.swap.max'), '0');
    await writeFile(join(dir, 'cpu.max'), `${cpuQuotaUs(limits.cpuMillis)} ${cpuPeriodUs}`);
    await writeFile(join(dir, 'pids.max'), tasks);
    return { procsFiles: [join(dir, 'cgroup.procs')], dirs, oomFile: join(dir, 'memory.events') };
  }
  if (layout.memory) {
    const dir = groupDir(layout.memory, serverId);
    await writeFile(join(dir, 'memory.limit_in_bytes'), memory);
    // With swap accounting the same number caps memory plus swap, so the limit cannot be swapped around.
    await writeOptional(join(dir, 'memory.memsw.limit_in_bytes'), memory);
  }
  if (layout.cpu) {
    const dir = groupDir(layout.cpu, serverId);
    await writeFile(join(dir, 'cpu.cfs_period_us'), String(cpuPeriodUs));
    await writeFile(join(dir, 'cpu.cfs_quota_us'), String(cpuQuotaUs(limits.cpuMillis)));
  }
  if (layout.pids) await writeFile(join(groupDir(layout.pids, serverId), 'pids.max'), tasks);
  return {
    procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
    dirs,
    oomFile: layout.memory ? join(groupDir(layout.memory, serverId), 'memory.oom_control') : null,
  };
}

/** v2 hands a controller to a child only when each ancestor lists it in `cgroup.subtree_control`. */
async function enableV2Controllers(root: string): Promise<void> {
  const parent = join(root, cgroupParent);
  await mkdir(parent, { recursive: true });
  for (const dir of [root, parent]) {
    const enabled = (await readFile(join(dir, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
    const wanted = ['memory', 'cpu', 'pids'].filter((c) => !enabled.includes(c));
    if (wanted.length > 0) await writeFile(join(dir, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
  }
}

async function writeOptional(file: string, value: string): Promise<void> {
  try {
    await writeFile(file, value);
  } catch (e) {
    if (errnoOf(e) !== 'ENOENT' && errnoOf(e) !== 'EACCES' && errnoOf(e) !== 'EINVAL') throw e;
  }
}
