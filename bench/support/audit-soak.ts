import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseControllerConfig } from '../../src/controller/program/config.js';
import { startController } from '../../src/controller/controller.js';
import { silentLogger } from '../../src/shared/logger.js';

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/**
 * A Controller in this process (so its heap is measured after a forced GC) under steady audited
 * traffic: a team renamed back and forth (SUCCESS), a duplicate create (FAILED), and a search of
 * the log, at BENCH_AUDIT_SOAK_RPS requests a second (at most 64 in flight: a request due beyond that
 * is skipped and counted). Heap every 30 s, and its slope after the first minute.
 */
export async function runSoak(durationSeconds: number): Promise<void> {
  const rps = Number(process.env.BENCH_AUDIT_SOAK_RPS ?? 150);
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-soak-'));
  const config = parseControllerConfig(['--data-dir', dataDir, '--http-port', '0', '--grpc-port', '0'], {});
  const controller = await startController({ config, logger: silentLogger });
  try {
    const api = `http://127.0.0.1:${controller.httpPort}/api/v1`;
    const setupCode = (await readFile(join(dataDir, 'setup-code'), 'utf8')).trim();
    const setup = await fetch(`${api}/setup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ setupCode, username: 'bench', email: 'bench@example.com', displayName: 'Bench', password: 'bench-password-1', network: { name: 'b', description: '', address: 'localhost', port: 25565 } }),
    });
    const cookie = /(__Host-cairn_session=[^;]+)/.exec(setup.headers.get('set-cookie') ?? '')![1];
    // A connection reset (the machine's load can outlast a keep-alive) counts as status 0, not a crash.
    const call = async (method: string, path: string, body?: unknown) => {
      try {
        const res = await fetch(`${api}${path}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
        await res.arrayBuffer();
        return res.status;
      } catch {
        return 0;
      }
    };
    const team = await fetch(`${api}/teams`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'soak' }) });
    const teamId = ((await team.json()) as { id: string }).id;

    let sent = 0;
    let skipped = 0;
    const maxInFlight = 64;
    const statuses = new Map<number, number>();
    const request = async (n: number) => {
      const status = n % 3 === 0 ? await call('PATCH', `/teams/${teamId}`, { name: n % 2 === 0 ? 'soak' : 'soak-renamed' })
        : n % 3 === 1 ? await call('POST', '/teams', { name: 'taken' })
          : await call('GET', `/audit-events?limit=50&action=team.update`);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    };
    await call('POST', '/teams', { name: 'taken' });

    console.log(`Audit soak: ${durationSeconds} s at ${rps} requests/s (two in three audited), heap after GC every 30 s`);
    const started = Date.now();
    const samples: [number, number][] = [];
    const inFlight = new Set<Promise<void>>();
    let nextSample = started;
    while (Date.now() - started < durationSeconds * 1000) {
      const elapsed = Date.now() - started;
      while (sent + skipped < (elapsed / 1000) * rps) {
        // A Controller slowed by the machine's other work must not make the soak measure its own queue of requests.
        if (inFlight.size >= maxInFlight) {
          skipped += 1;
          continue;
        }
        const p = request(sent++).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      if (Date.now() >= nextSample) {
        global.gc?.();
        const { heapUsed: heap, arrayBuffers, rss } = process.memoryUsage();
        samples.push([elapsed / 60_000, heap]);
        // Array buffers: the open audit segment's long posting lists live there, off the JS heap.
        console.log(`  ${(elapsed / 1000).toFixed(0).padStart(4)} s  heap ${mib(heap).padStart(6)} MiB  array buffers ${mib(arrayBuffers).padStart(5)} MiB  rss ${mib(rss).padStart(6)} MiB  requests ${sent}  in flight ${inFlight.size}  skipped ${skipped}`);
        nextSample += 30_000;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    const steady = samples.filter(([minutes]) => minutes >= 1);
    const events = (await controller.repos.audit.search({ limit: 1 }))[0]?.id ?? 0;
    console.log(`statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}; skipped (${maxInFlight} in flight): ${skipped}; audit events written: ${events}`);
    console.log(`heap slope after the first minute: ${steady.length >= 2 ? mib(slope(steady)) : 'n/a'} MiB/min`);
  } finally {
    await controller.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
