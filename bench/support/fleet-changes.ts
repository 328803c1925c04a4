/**
 * The fleet bench's change windows: PATCH /servers/{id} on random servers at a set rate while the
 * Agents heartbeat, each latency from just before the request to the owning Agent's receipt (its
 * process reports it over IPC: same machine, same clock). A change later than the goal is set
 * beside the stalls and GC pauses the stall probe (stall-probe.js) wrote for the Controller and
 * for the Agent process that received it, so a run's tail says whose it was.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../test/support/http.js';
import { percentile, sleep } from './fleet-measure.js';
import type { FleetSeed } from './fleet-seed.js';

export const goalMs = 50;
export interface ChangeRate { perSecond: number; seconds: number; procCount: number }
export type Arrivals = Map<string, { at: number; proc: number }>;
interface Late { sent: number; arrived: number; proc: number }
export interface Span { kind: string; start: number; end: number }

const wallNow = () => performance.timeOrigin + performance.now();
/** The toggled memory reservation of each server changed so far, across windows. */
const memory = new Map<string, number>();

/** One window of changes; the latencies in ms, per Agent process, and the changes later than the goal. */
export async function changeWindow(admin: ApiClient, seed: FleetSeed, arrivals: Arrivals, rate: ChangeRate) {
  const sent: { key: string; at: number }[] = [];
  const answered: number[] = [];
  const requests: Promise<void>[] = [];
  const total = rate.perSecond * rate.seconds;
  const begin = performance.now();
  for (let i = 0; i < total; i++) {
    await sleep(Math.max(0, begin + (i * 1000) / rate.perSecond - performance.now()));
    const id = seed.serverIds[Math.floor(Math.random() * seed.serverIds.length)];
    const memoryBytes = (memory.get(id) ?? seed.memoryBytes) === seed.memoryBytes ? seed.memoryBytes + 2 ** 20 : seed.memoryBytes;
    memory.set(id, memoryBytes);
    const at = wallNow();
    requests.push(admin.patch<{ generation: number }>(`/servers/${id}`, { resources: { cpuMillis: 10, memoryBytes } }).then((res) => {
      if (res.status !== 200) throw new Error(`PATCH answered ${res.status}: ${res.text}`);
      sent.push({ key: `${id} ${res.body.generation}`, at });
      answered.push(wallNow() - at);
    }));
  }
  await Promise.all(requests);
  await sleep(5000);
  const byProc: number[][] = Array.from({ length: rate.procCount }, () => []);
  const late: Late[] = [];
  for (const { key, at } of sent) {
    const arrival = arrivals.get(key);
    if (!arrival) continue;
    byProc[arrival.proc].push(arrival.at - at);
    if (arrival.at - at >= goalMs) late.push({ sent: at, arrived: arrival.at, proc: arrival.proc });
  }
  const ms = byProc.flat();
  return { sent: sent.length, ms, byProc, lost: sent.length - ms.length, answered, late };
}

/** The spans the stall probe wrote for process `pid` (none if it wrote no file). */
export async function stallSpans(dir: string, pid: number): Promise<Span[]> {
  const file = join(dir, `${pid}.jsonl`);
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Span);
}

/**
 * What each late change met, from the request to the receipt: the Controller's stalls, GC pauses
 * and fdatasyncs, and the receiving Agent process's stalls and GC pauses (each a count of late
 * changes, one change counted under every kind it met), and how many met none of them (then the
 * time went to waiting for a core, or to work under the probe's 10 ms).
 */
export function blame(late: Late[], controller: Span[], agents: Span[][]) {
  const met = new Map<string, { changes: number; longestMs: number }>();
  let none = 0;
  for (const change of late) {
    const spans = [
      ...controller.map((s) => ({ ...s, kind: `Controller ${s.kind}` })),
      ...(agents[change.proc] ?? []).map((s) => ({ ...s, kind: `Agent process ${s.kind}` })),
    ].filter((s) => s.start < change.arrived && s.end > change.sent);
    if (spans.length === 0) none += 1;
    for (const kind of new Set(spans.map((s) => s.kind))) {
      const longestMs = Math.max(...spans.filter((s) => s.kind === kind).map((s) => s.end - s.start));
      const seen = met.get(kind) ?? { changes: 0, longestMs: 0 };
      met.set(kind, { changes: seen.changes + 1, longestMs: Math.max(seen.longestMs, longestMs) });
    }
  }
  const kinds = [...met].sort((a, b) => b[1].changes - a[1].changes).map(([kind, m]) => `${kind} ${m.changes} (longest ${m.longestMs.toFixed(0)} ms)`);
  return `${[...kinds, `none of them ${none}`].join(', ')}`;
}

/** A line per window: the longest stalls and GC pauses of a process within [from, to]. */
export function worstSpans(spans: Span[], from: number, to: number, count = 3): string {
  const inside = spans.filter((s) => s.end > from && s.start < to).sort((a, b) => (b.end - b.start) - (a.end - a.start));
  return inside.slice(0, count).map((s) => `${s.kind} ${(s.end - s.start).toFixed(0)} ms`).join(', ') || 'none ≥ 10 ms';
}

export const summary = (ms: number[]) => `p50 ${percentile(ms, 0.5).toFixed(1)} ms, p99 ${percentile(ms, 0.99).toFixed(1)} ms, max ${percentile(ms, 1).toFixed(1)} ms`;
