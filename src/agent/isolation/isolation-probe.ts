import { execFile } from 'node:child_process';
import { access, constants, mkdir, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { cgroupLayoutOf, parseMountInfo, type CgroupLayout } from './cgroup-layout.js';
import { cgroupParent, maxTasks } from './cgroups.js';
import type { NetTools } from './game-net.js';
import { noIsolation, type IsolationMode, type IsolationSupport } from './isolation-mode.js';
import { runCommand } from './net-commands.js';

const run = promisify(execFile);

/** What the Agent found at start: what it enforces, with what, and in words what is missing. */
export interface IsolationPlan {
  mode: IsolationMode;
  support: IsolationSupport;
  missing: string[];
  bwrap: string | null;
  setpriv: string | null;
  cgroups: CgroupLayout | null;
  /** The programs games' own networks are made with; null when games keep the host's network. */
  net: NetTools | null;
}

/**
 * Capability numbers (linux/capability.h) the box needs: CHOWN (a server's files), DAC_OVERRIDE
 * (reading what a game made private), KILL (games of other uids), SETGID/SETUID (the game's
 * identity), SETPCAP (emptying its bounding set), SYS_CHROOT and SYS_ADMIN (bubblewrap's view).
 */
const neededCaps = { CAP_CHOWN: 0, CAP_DAC_OVERRIDE: 1, CAP_KILL: 5, CAP_SETGID: 6, CAP_SETUID: 7, CAP_SETPCAP: 8, CAP_SYS_CHROOT: 18, CAP_SYS_ADMIN: 21 } as const;

/** The capabilities the box needs that an effective set (`CapEff` hex of /proc/self/status) lacks. */
export function missingCapabilities(capEffHex: string): string[] {
  const caps = BigInt(`0x${capEffHex.trim() || '0'}`);
  return Object.entries(neededCaps).filter(([, bit]) => (caps & (1n << BigInt(bit))) === 0n).map(([name]) => name);
}

async function effectiveCapabilities(): Promise<string> {
  const status = await readFile('/proc/self/status', 'utf8');
  return /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1] ?? '0';
}

/** The first executable called `name` on PATH (or the standard system dirs). */
export async function findExecutable(name: string): Promise<string | null> {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/sbin', '/sbin'].filter(Boolean);
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      await access(path, constants.X_OK);
      return path;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/** Runs a throwaway box, so a kernel that refuses mount namespaces shows here, not at a game's start. */
async function bwrapWorks(bwrap: string): Promise<string | null> {
  try {
    await run(bwrap, ['--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--unshare-pid', '--', 'true'], { timeout: 10_000 });
    return null;
  } catch (e) {
    const error = e as { stderr?: string; message: string };
    return (error.stderr?.trim() || error.message).split('\n')[0];
  }
}

async function canCreateGroup(mount: string | null): Promise<boolean> {
  if (!mount) return false;
  try {
    await mkdir(join(mount, cgroupParent), { recursive: true });
    return true;
  } catch {
    return false;
  }
}

async function v2HasController(root: string, controller: string): Promise<boolean> {
  return (await readFile(join(root, 'cgroup.controllers'), 'utf8').catch(() => '')).split(/\s+/).includes(controller);
}

async function detectCgroups(): Promise<CgroupLayout | null> {
  let mountInfo: string;
  try {
    mountInfo = await readFile('/proc/self/mountinfo', 'utf8');
  } catch {
    return null;
  }
  const controllers = new Map<string, string | null>();
  for (const mount of parseMountInfo(mountInfo).filter((m) => m.fsType === 'cgroup2')) {
    controllers.set(mount.mountPoint, await readFile(join(mount.mountPoint, 'cgroup.controllers'), 'utf8').catch(() => null));
  }
  return cgroupLayoutOf(parseMountInfo(mountInfo), (mountPoint) => controllers.get(mountPoint) ?? null);
}

/**
 * Finds out what the box can hold on this host. `off` looks at nothing. The uid needs only root
 * and setpriv; the view needs the uid too; the cgroup needs neither: a host without bubblewrap
 * still gets users and limits, one without cgroups still gets users and views.
 */
export async function probeIsolation(mode: IsolationMode): Promise<IsolationPlan> {
  if (mode === 'off') return { mode, support: noIsolation, missing: [], bwrap: null, setpriv: null, cgroups: null, net: null };
  const missing: string[] = [];
  const lacking = missingCapabilities(await effectiveCapabilities());
  const privileged = lacking.length === 0;
  if (!privileged) missing.push(`the Agent is not root (it lacks ${lacking.join(', ')})`);

  const setpriv = privileged ? await findExecutable('setpriv') : null;
  if (privileged && !setpriv) missing.push('setpriv (util-linux) is not installed');

  let bwrap = privileged ? await findExecutable('bwrap') : null;
  if (privileged && !bwrap) missing.push('bubblewrap (bwrap) is not installed');
  if (bwrap) {
    const refused = await bwrapWorks(bwrap);
    if (refused) {
      missing.push(`bubblewrap cannot build a view here (${refused})`);
      bwrap = null;
    }
  }

  let cgroups = privileged ? await detectCgroups() : null;
  let memory = false;
  let cpu = false;
  let pids = false;
  if (cgroups?.version === 2) {
    memory = cpu = await canCreateGroup(cgroups.root);
    pids = memory && (await v2HasController(cgroups.root, 'pids'));
  } else if (cgroups) {
    memory = await canCreateGroup(cgroups.memory);
    cpu = await canCreateGroup(cgroups.cpu);
    pids = await canCreateGroup(cgroups.pids);
  }
  if (privileged && !memory) missing.push('no usable memory cgroup controller');
  if (privileged && !cpu) missing.push('no usable cpu cgroup controller');
  if (privileged && !pids) missing.push(`no usable pids cgroup controller (the limit of ${maxTasks} tasks)`);
  if (!memory && !cpu && !pids) cgroups = null;

  // A game never runs as root while the Agent can make it someone else: without a view it still gets its own uid.
  const users = setpriv !== null;
  const filesystem = users && bwrap !== null;
  const net = filesystem ? await probeNetwork(missing) : null;
  return { mode, support: { users, filesystem, memory, cpu, pids, network: net !== null }, missing, bwrap: filesystem ? bwrap : null, setpriv, cgroups, net };
}

/** The tools of a game's own network, and a trial nftables transaction (a kernel without nf_tables shows here). */
async function probeNetwork(missing: string[]): Promise<NetTools | null> {
  const [ip, nft, nsenter] = await Promise.all(['ip', 'nft', 'nsenter'].map(findExecutable));
  if (!ip) missing.push('ip (iproute2) is not installed, so games share the Node\'s network');
  if (!nft) missing.push('nft (nftables) is not installed, so games share the Node\'s network');
  if (!nsenter) missing.push('nsenter (util-linux) is not installed, so games share the Node\'s network');
  if (!ip || !nft || !nsenter) return null;
  try {
    await runCommand(nft, ['-f', '-'], 'add table ip cairn_probe\ndelete table ip cairn_probe\n');
  } catch (e) {
    missing.push(`nftables does not work here, so games share the Node's network (${(e as Error).message.split('\n')[0]})`);
    return null;
  }
  return { ip, nft, nsenter };
}
