import { readFile } from 'node:fs/promises';
import { readProcStat } from '../../shared/proc-stat.js';

/**
 * USER_HZ: the unit of the times in /proc/<pid>/stat. It is part of the kernel's user ABI and is
 * 100 on every architecture Linux servers run on, whatever the kernel's internal HZ.
 */
const CLOCK_TICKS_PER_SECOND = 100;

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

export function parseRssBytes(statusText: string): number | null {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(statusText);
  return match ? Number(match[1]) * 1024 : null;
}

/** CPU time and resident memory of one process (Linux); null when it is gone or /proc is absent. */
export async function readProcessUsage(pid: number): Promise<ProcessUsage | null> {
  const [stat, status] = await Promise.all([readProcStat(pid), readProcFile(pid, 'status')]);
  if (stat === null || status === null) return null;
  const cpuMillis = Math.round((stat.cpuTicks * 1000) / CLOCK_TICKS_PER_SECOND);
  return { pid, cpuMillis, memoryBytes: parseRssBytes(status) ?? 0 };
}
