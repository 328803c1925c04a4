import { readFile } from 'node:fs/promises';

const ticksPerSecond = 100;

/** A process's user+system CPU in ms, from /proc. */
export async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** One sample's value in a Prometheus text exposition (labels included in `name`); 0 when absent. */
export function metric(text: string, name: string): number {
  const match = new RegExp(`^${name.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** The value at quantile `q` (0..1) of unsorted samples; NaN when there are none. */
export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
