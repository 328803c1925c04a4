import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export const MiB = 1024 * 1024;

/**
 * A built Cairn program (`dist/...`) in its own process, quiet but for warnings, on the embedded store.
 * With BENCH_CPU_PROF=<dir> it writes a CPU profile there when it exits (Node refuses --cpu-prof in NODE_OPTIONS).
 */
export function spawnProgram(script: string, args: string[]): ChildProcess {
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return spawn(process.execPath, [...profile, script, ...args], { env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
}

/** A process's resident memory now, from /proc; 0 once it is gone. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Each process's RSS before `work` and its peak while `work` runs (sampled every `everyMs`). */
export async function peakRss<T>(pids: Record<string, number>, work: () => Promise<T>, everyMs = 20): Promise<{ result: T; rss: Record<string, { before: number; peak: number }> }> {
  const rss: Record<string, { before: number; peak: number }> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const before = await rssBytes(pid);
    rss[name] = { before, peak: before };
  }
  const sampler = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) void rssBytes(pid).then((now) => (rss[name].peak = Math.max(rss[name].peak, now)));
  }, everyMs);
  try {
    return { result: await work(), rss };
  } finally {
    clearInterval(sampler);
  }
}

/** `Controller RSS 139 MiB before, peak 190 MiB (+50.6 MiB); Agent …` for each process measured. */
export const rssText = (rss: Record<string, { before: number; peak: number }>) =>
  Object.entries(rss).map(([name, r]) => `${name} RSS ${(r.before / MiB).toFixed(0)} MiB before, peak ${(r.peak / MiB).toFixed(0)} MiB (+${((r.peak - r.before) / MiB).toFixed(1)} MiB)`).join('; ');
