/**
 * Foundation benchmark: HTTP throughput of the built Controller in a separate process, and audit
 * searches over 1,000,000 events on the embedded store. Run with `npm run bench` (builds first).
 */
import autocannon from 'autocannon';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { AuditFileLog } from '../src/controller/store/embedded/audit-file-log.js';
import type { AuditEventRecord, AuditQuery } from '../src/controller/store/records.js';
import type { Clock } from '../src/shared/clock.js';
import { startControllerProcess } from './support/controller-process.js';

const httpSeconds = Number(process.env.BENCH_HTTP_SECONDS ?? 8);
const auditEvents = Number(process.env.BENCH_AUDIT_EVENTS ?? 1_000_000);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function load(title: string, url: string, cookie: string): Promise<void> {
  const result = await autocannon({ url, connections: 32, duration: httpSeconds, headers: { cookie } });
  const ok = result.non2xx === 0 && result.errors === 0;
  console.log(
    `${title.padEnd(28)} ${Math.round(result.requests.average).toString().padStart(6)} req/s` +
    `  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms` +
    `  (${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors)${ok ? '' : '  <-- NOT ALL OK'}`,
  );
  if (!ok) process.exitCode = 1;
}

async function httpBench(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-'));
  const { child, httpPort: port } = await startControllerProcess(dataDir);
  try {
    const base = `http://127.0.0.1:${port}/api/v1`;
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await fetch(`${base}/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        setupCode, username: 'admin', email: 'admin@example.com', displayName: 'Admin', password: 'bench-password-1',
        network: { name: 'Bench', address: 'play.example.com', port: 25565 },
      }),
    });
    if (setup.status !== 201) throw new Error(`setup failed: ${setup.status} ${await setup.text()}`);
    const cookie = /(__Host-cairn_session=[^;]+)/.exec(setup.headers.get('set-cookie') ?? '')![1];
    for (let i = 0; i < 60; i++) {
      await fetch(`${base}/teams`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: `team-${i}` }) });
    }
    console.log(`HTTP: Controller in a separate process, autocannon 32 connections, ${httpSeconds} s each`);
    await load('GET /api/v1/me (cookie)', `${base}/me`, cookie);
    await load('GET /api/v1/teams?limit=50', `${base}/teams?limit=50`, cookie);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await rm(dataDir, { recursive: true, force: true });
  }
}

function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  return fn().then((value) => ({ ms: Number(process.hrtime.bigint() - started) / 1e6, value }));
}

async function auditBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-audit-'));
  try {
    // Write the file as the log writes it: one JSON event a line, one event a second over ~11.6 days.
    const file = join(dir, 'audit-events.jsonl');
    const out = createWriteStream(file);
    const t0 = Date.parse('2024-01-01T00:00:00.000Z');
    const actors = Array.from({ length: 100 }, (_, i) => `0190${i.toString(16).padStart(4, '0')}-0000-7000-8000-000000000000`);
    const actions = ['user.create', 'team.create', 'server.start', 'server.stop', 'file.write', 'console.command', 'role.update', 'session.create'];
    const generated = await time(async () => {
      for (let i = 1; i <= auditEvents; i++) {
        const event: AuditEventRecord = {
          id: i, occurredAt: new Date(t0 + i * 1000).toISOString(), actorKind: i % 7 === 0 ? 'API_TOKEN' : 'USER',
          actorUserId: actors[i % actors.length], action: actions[i % actions.length], targetKind: i % 3 === 0 ? 'team' : 'server',
          targetId: `target-${i % 20_000}`, outcome: i % 50 === 0 ? 'DENIED' : i % 97 === 0 ? 'FAILED' : 'SUCCESS',
          details: { path: `plugins/p${i % 10}.jar`, sizeBytes: i },
        };
        const line = JSON.stringify(event) + '\n';
        if (!out.write(line)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
    });
    console.log(`\nAudit (embedded): ${auditEvents.toLocaleString('en')} events, ${mib((await stat(file)).size)} file, written in ${(generated.ms / 1000).toFixed(1)} s`);

    const clock: Clock = { now: () => new Date() };
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const opened = await time(() => AuditFileLog.open(dir, clock, () => undefined));
    const log = opened.value;
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    console.log(`load (open + index)          ${(opened.ms / 1000).toFixed(2)} s, heap +${mib(heapAfter - heapBefore)} (${mib(heapAfter)} used, rss ${mib(process.memoryUsage().rss)})`);

    const iso = (s: number) => new Date(t0 + s * 1000).toISOString();
    const searches: [string, AuditQuery][] = [
      ['unfiltered first page (50)', { limit: 51 }],
      ['selective: targetId (50 of 1M)', { targetId: 'target-12345', limit: 51 }],
      ['actorUserId + outcome DENIED', { actorUserId: actors[50], outcome: 'DENIED', limit: 51 }],
      ['since/until 1 h window', { since: iso(500_000), until: iso(503_600), limit: 51 }],
      ['window + action filter', { since: iso(500_000), until: iso(503_600), action: 'server.start', limit: 51 }],
      ['deep cursor (beforeId 1,000)', { beforeId: 1000, limit: 51 }],
      ['deep cursor + filter', { beforeId: 5000, targetKind: 'team', limit: 51 }],
      // Worst case for the position lists: two filters that never match together, so the shorter list (20,000) is walked to its end.
      ['no match: DENIED + team.create', { outcome: 'DENIED', action: 'team.create', limit: 51 }],
    ];
    console.log('search (median of 20; each asks for one page of 50 + 1)');
    for (const [title, query] of searches) {
      const runs: number[] = [];
      let found = 0;
      for (let i = 0; i < 20; i++) {
        const r = await time(() => log.search(query));
        runs.push(r.ms);
        found = r.value.length;
      }
      runs.sort((a, b) => a - b);
      console.log(`  ${title.padEnd(34)} ${runs[10].toFixed(3).padStart(8)} ms  (max ${runs[19].toFixed(3)} ms, ${found} rows)`);
    }
    const appended = await time(async () => {
      for (let i = 0; i < 1000; i++) await log.append({ actorKind: 'SYSTEM', action: 'bench.append', targetKind: 'bench', targetId: String(i), outcome: 'SUCCESS', details: {} });
    });
    console.log(`append 1,000 events (each awaited)  ${appended.ms.toFixed(0)} ms`);
    await log.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await httpBench();
await auditBench();
