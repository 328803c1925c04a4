import { readFile } from 'node:fs/promises';

/**
 * USER_HZ: the unit of the times in /proc/<pid>/stat. It is part of the kernel's user ABI and is
 * 100 on every architecture Linux servers run on, whatever the kernel's internal HZ.
 */
const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcStat {
  /** R, S, D, Z, T, ... */
  state: string;
  /** When the process started, in clock ticks since boot: with the pid, a process's identity. */
  startTicks: number;
  /** User plus system CPU time, in clock ticks. */
  cpuTicks: number;
}

export interface ProcessUsage {
  pid: number;
  cpuMillis: number;
  memoryBytes: number;
}

async function readProcFile(pid: number, name: string): Promise<string | null> {
  try {
    return await readFile(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}

export function parseProcStat(text: string): ProcStat | null {
  // The command name (field 2) may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).trim().split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const startTicks = Number(fields[19]);
  if (!fields[0] || !Number.isFinite(utime) || !Number.isFinite(stime) || !Number.isFinite(startTicks)) return null;
  return { state: fields[0], startTicks, cpuTicks: utime + stime };
}

export function parseRssBytes(statusText: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(statusText);
  return match ? Number(match[1]) * 1024 : null;
}

export async function readProcStat(pid: number): Promise<ProcStat | null> {
  const text = await readProcFile(pid, 'stat');
  return text === null ? null : parseProcStat(text);
}

/** CPU time and resident memory of one process (Linux); null when it is gone or /proc is absent. */
export async function readProcessUsage(pid: number): Promise<ProcessUsage | null> {
  const [stat, status] = await Promise.all([readProcStat(pid), readProcFile(pid, 'status')]);
  if (stat === null || status === null) return null;
  const cpuMillis = Math.round((stat.cpuTicks * 1000) / CLOCK_TICKS_PER_SECOND);
  return { pid, cpuMillis, memoryBytes: parseRssBytes(status) ?? 0 };
}
