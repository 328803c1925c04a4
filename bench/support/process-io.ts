import { readFile } from 'node:fs/promises';
import { MiB } from './process-rss.js';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const ticksPerSecond = 100;

export interface Counters {
  /** Bytes read through read(2) and its kin (files, page cache or not, and sockets). */
  read: number;
  /** CPU seconds, user and system. */
  cpu: number;
  /** The part of `cpu` spent in the kernel (copies to and from sockets and files, writeback on fsync). */
  system: number;
}

/** A process's counters so far, from /proc; zeros once it is gone. */
export async function countersOf(pid: number): Promise<Counters> {
  const [io, stat] = await Promise.all([readFile(`/proc/${pid}/io`, 'utf8').catch(() => ''), readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')]);
  // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const system = Number(fields[12] ?? 0) / ticksPerSecond;
  return { read: Number(/^rchar:\s+(\d+)$/m.exec(io)?.[1] ?? 0), cpu: Number(fields[11] ?? 0) / ticksPerSecond + system, system };
}

/**
 * What each process read and the CPU it spent while `work` ran. CPU seconds tell the cost of a
 * copy on a machine shared with other work, where its wall time tells mostly the others' load.
 */
export async function countersDuring<T>(pids: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; spent: Record<string, Counters> }> {
  const before = new Map(await Promise.all(Object.entries(pids).map(async ([name, pid]) => [name, await countersOf(pid)] as const)));
  const result = await work();
  const spent: Record<string, Counters> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const now = await countersOf(pid);
    const then = before.get(name)!;
    spent[name] = { read: now.read - then.read, cpu: now.cpu - then.cpu, system: now.system - then.system };
  }
  return { result, spent };
}

/** `Controller read 10.2 MiB, CPU 1.23 s (0.40 s in the kernel); Agent …` */
export const countersText = (spent: Record<string, Counters>) =>
  Object.entries(spent).map(([name, c]) => `${name} read ${(c.read / MiB).toFixed(1)} MiB, CPU ${c.cpu.toFixed(2)} s (${c.system.toFixed(2)} s in the kernel)`).join('; ');
