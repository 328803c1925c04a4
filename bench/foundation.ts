/**
 * Foundation benchmark: HTTP throughput of the built Controller in a separate process (the audit
 * store has its own, bench/audit.ts). Run with `npm run bench` (builds first).
 */
import autocannon from 'autocannon';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startControllerProcess } from './support/controller-process.js';

const httpSeconds = Number(process.env.BENCH_HTTP_SECONDS ?? 8);

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

await httpBench();
