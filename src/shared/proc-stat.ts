import { readFile } from 'node:fs/promises';

/**
 * A process's identity on Linux: a pid alone names whoever has it now, so a record of a process
 * (an Agent's uid claim, a supervisor's run record, a data dir's lock) keeps its start time too.
 */

export interface ProcStat {
  /** R, S, D, Z, T, ... */
  state: string;
  parentPid: number;
  /** When the process started, in clock ticks since boot: with the pid, a process's identity. */
  startTicks: number;
  /** User plus system CPU time, in clock ticks. */
  cpuTicks: number;
}

export function parseProcStat(text: string): ProcStat | null {
  // The command name (field 2) may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).trim().split(' ');
  const parentPid = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const startTicks = Number(fields[19]);
  if (!fields[0] || ![parentPid, utime, stime, startTicks].every(Number.isFinite)) return null;
  return { state: fields[0], parentPid, startTicks, cpuTicks: utime + stime };
}

/** /proc/<pid>/stat, or null when the process is gone (or there is no /proc). */
export async function readProcStat(pid: number): Promise<ProcStat | null> {
  let text;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return parseProcStat(text);
}

/**
 * True when `pid` is alive and is the process that started at `startTicks`: pids are reused,
 * and signalling a stranger's process is worse than missing ours.
 */
export async function isSameProcessAlive(pid: number, startTicks: number): Promise<boolean> {
  const stat = await readProcStat(pid);
  if (stat === null) return false;
  return stat.state !== 'Z' && stat.state !== 'X' && stat.startTicks === startTicks;
}
