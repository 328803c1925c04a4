/**
 * Audit log on the embedded store: writes BENCH_AUDIT_EVENTS events (default 10,000,000) through
 * the log, reopens it, and reports heap after GC, size on disk and p50/p99 of typical searches.
 * BENCH_AUDIT_SOAK=1 runs the soak instead: a Controller in this process under steady audited
 * API traffic for BENCH_AUDIT_SOAK_SECONDS (default 600), heap printed every 30 s with its slope.
 * BENCH_AUDIT_DIR=<dir> keeps the written log there: a later run reopens and searches it without writing.
 * Run with `node --import tsx --expose-gc bench/audit.ts` (or `npm run bench audit`).
 */
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditSegmentLog } from '../src/controller/store/embedded/audit/segment-log.js';
import type { AuditQuery, NewAuditEvent } from '../src/controller/store/records.js';
import { runSoak } from './support/audit-soak.js';

const events = Number(process.env.BENCH_AUDIT_EVENTS ?? 10_000_000);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const day = 24 * 3600_000;
const t0 = Date.parse('2025-01-01T00:00:00.000Z');
// A year of a busy fleet: the events spread evenly over 365 days.
const spacingMs = (365 * day) / events;

const actors = Array.from({ length: 200 }, (_, i) => `0190${i.toString(16).padStart(4, '0')}-0000-7000-8000-000000000000`);
const actions = Array.from({ length: 40 }, (_, i) => `${['server', 'team', 'user', 'node', 'backup'][i % 5]}.action${i}`);
const targetKinds = ['server', 'team', 'user', 'node', 'backup', 'role'];
const targets = 50_000;

function eventAt(i: number): NewAuditEvent {
  const system = i % 10 === 9;
  return {
    actorKind: system ? 'SYSTEM' : i % 7 === 0 ? 'API_TOKEN' : 'USER',
    ...(system ? {} : { actorUserId: actors[(i * 7) % actors.length] }),
    action: actions[(i * 13) % actions.length],
    targetKind: targetKinds[i % targetKinds.length],
    targetId: `target-${(i * 7919) % targets}`,
    outcome: i % 50 === 0 ? 'DENIED' : i % 97 === 0 ? 'FAILED' : 'SUCCESS',
    details: { path: `plugins/p${i % 10}.jar`, sizeBytes: i },
    occurredAt: new Date(t0 + i * spacingMs).toISOString(),
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const now = () => Number(process.hrtime.bigint()) / 1e6;
const heapAfterGc = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

async function writeAll(log: AuditSegmentLog): Promise<void> {
  const started = now();
  const inFlight = 2000;
  let writes: Promise<unknown>[] = [];
  for (let i = 0; i < events; i++) {
    writes.push(log.append(eventAt(i)));
    if (writes.length >= inFlight) {
      await Promise.all(writes);
      writes = [];
    }
    if (i > 0 && i % 1_000_000 === 0) console.log(`  ${i.toLocaleString('en')} written, ${seconds(now() - started)}, heap ${mib(heapAfterGc())}`);
  }
  await Promise.all(writes);
  const ms = now() - started;
  console.log(`write ${events.toLocaleString('en')} events (${inFlight} in flight): ${seconds(ms)}, ${Math.round(events / (ms / 1000)).toLocaleString('en')} events/s`);
}

async function diskSize(dir: string, suffix = ''): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) if (name.endsWith(suffix)) total += (await stat(join(dir, name))).size;
  return total;
}

function searches(): [string, () => AuditQuery][] {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
  const midId = () => Math.floor(events * (0.2 + Math.random() * 0.6));
  const midTime = () => new Date(t0 + Math.random() * 300 * day).toISOString();
  return [
    ['first page, no filter', () => ({ limit: 51 })],
    ['by actor', () => ({ actorUserId: pick(actors), limit: 51 })],
    ['by target (kind + id)', () => {
      const i = Math.floor(Math.random() * events);
      return { targetKind: targetKinds[i % targetKinds.length], targetId: `target-${(i * 7919) % targets}`, limit: 51 };
    }],
    ['by action', () => ({ action: pick(actions), limit: 51 })],
    ['actor + outcome DENIED', () => ({ actorUserId: pick(actors), outcome: 'DENIED', limit: 51 })],
    // Each actor here does one action only: any other action with it matches nothing in the whole log.
    ['actor + action never together', () => {
      const a = Math.floor(Math.random() * actors.length);
      const own = (13 * ((a * 143) % actors.length)) % actions.length;
      return { actorUserId: actors[a], action: actions[(own + 1 + Math.floor(Math.random() * (actions.length - 1))) % actions.length], limit: 51 };
    }],
    ['time range (1 h window)', () => {
      const since = midTime();
      return { since, until: new Date(Date.parse(since) + 3600_000).toISOString(), limit: 51 };
    }],
    ['deep page (cursor mid-log)', () => ({ beforeId: midId(), limit: 51 })],
    ['deep page + actor', () => ({ beforeId: midId(), actorUserId: pick(actors), limit: 51 })],
    ['no match (unknown target)', () => ({ targetId: `missing-${Math.random()}`, limit: 51 })],
  ];
}

async function measureSearches(log: AuditSegmentLog): Promise<void> {
  const runs = Number(process.env.BENCH_AUDIT_SEARCHES ?? 100);
  // CPU per search (the process's, thread pool included) moves less with the machine's load than the times do.
  console.log(`search (${runs} runs each, random values, one page of 50 + 1): p50 / p99 / max, and CPU per search; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (const [title, query] of searches()) {
    const times: number[] = [];
    let rows = 0;
    const cpu = process.cpuUsage();
    for (let i = 0; i < runs; i++) {
      const q = query();
      const started = now();
      rows += (await log.search(q)).length;
      times.push(now() - started);
    }
    const { user, system } = process.cpuUsage(cpu);
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
    console.log(`  ${title.padEnd(30)} ${p(0.5).padStart(7)} / ${p(0.99).padStart(7)} / ${times.at(-1)!.toFixed(2).padStart(7)} ms, CPU ${((user + system) / 1000 / runs).toFixed(2).padStart(6)} ms  (${(rows / runs).toFixed(0)} rows avg)`);
  }
}

async function storeBench(): Promise<void> {
  // BENCH_AUDIT_DIR keeps the log for the next run, which then only reopens and searches it.
  const kept = process.env.BENCH_AUDIT_DIR;
  const dir = kept ?? (await mkdtemp(join(tmpdir(), 'cairn-bench-audit-')));
  await mkdir(dir, { recursive: true });
  const clock = { now: () => new Date(t0 + 366 * day) };
  try {
    console.log(`Audit (embedded store): ${events.toLocaleString('en')} events over 365 days`);
    console.log(`process baseline before opening: heap ${mib(heapAfterGc())} + array buffers ${mib(process.memoryUsage().arrayBuffers)}`);
    if (!kept || (await readdir(dir)).length === 0) {
      const log = await AuditSegmentLog.open(dir, clock, () => undefined);
      await writeAll(log);
      console.log(`heap + array buffers after GC, log open after writing: ${mib(heapAfterGc() + process.memoryUsage().arrayBuffers)}`);
      await log.close();
    }
    const files = (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).length;
    const postings = await diskSize(dir, '.post');
    console.log(`on disk: ${mib(await diskSize(dir))} in ${files} segments (${(await diskSize(dir) / events).toFixed(0)} bytes/event, indexes included; posting files ${mib(postings)}, ${(postings / events).toFixed(0)} bytes/event)`);

    const started = now();
    const reopened = await AuditSegmentLog.open(dir, clock, () => undefined);
    console.log(`reopen (saved indexes and posting heads + scan of the open segment): ${seconds(now() - started)}`);
    // The Bloom filters and bucket tables are buffers: their bytes count as arrayBuffers, outside heapUsed.
    console.log(`heap after GC, log reopened: ${mib(heapAfterGc())} + array buffers ${mib(process.memoryUsage().arrayBuffers)}; rss ${mib(process.memoryUsage().rss)}`);
    await measureSearches(reopened);
    console.log(`heap after GC, after the searches: ${mib(heapAfterGc())}`);
    await reopened.close();
    if (kept) return;

    // An upgrade from a version without posting files, or a crash while sealing every day: each is rebuilt at start.
    for (const name of await readdir(dir)) if (name.endsWith('.post')) await rm(join(dir, name));
    const rebuildStarted = now();
    const rebuilt = await AuditSegmentLog.open(dir, clock, () => undefined);
    console.log(`reopen rebuilding every posting file: ${seconds(now() - rebuildStarted)}`);
    const pruneStarted = now();
    const pruned = await rebuilt.prune(new Date(t0 + 90 * day).toISOString());
    console.log(`prune the oldest 90 days: ${pruned.toLocaleString('en')} events in ${(now() - pruneStarted).toFixed(0)} ms`);
    await rebuilt.close();
  } finally {
    if (!kept) await rm(dir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_AUDIT_SOAK === '1') await runSoak(Number(process.env.BENCH_AUDIT_SOAK_SECONDS ?? 600));
else await storeBench();
