/**
 * SFTP upload throughput: a tree of BENCH_SFTP_MIB files of 1 MiB (default 1,024: 1 GiB) uploaded
 * with ssh2's client (fastPut, 8 files at once) to a real Agent through the Controller, beside
 * `cp -a` of the same tree on the same disk in the same run, and the ratio. The Controller runs in
 * this process (test/support/fleet.ts) with the client: the RSS printed is both, an upper bound.
 * Run with `npm run bench sftp-upload`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServerDetail } from '../test/support/api-types.js';
import { GiB, startFleet, waitForServer } from '../test/support/fleet.js';
import { sftpConnect } from '../test/support/sftp-client.js';

const MiB = 1024 * 1024;
const files = Number(process.env.BENCH_SFTP_MIB ?? 1024);
const parallel = 8;

const source = await mkdtemp(join(tmpdir(), 'cairn-bench-sftp-'));
const f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
try {
  const names = Array.from({ length: files }, (_, i) => `d${i % 16}/f${i}.bin`);
  for (let d = 0; d < 16; d += 1) await mkdir(join(source, 'tree', `d${d}`), { recursive: true });
  for (const name of names) await writeFile(join(source, 'tree', name), randomBytes(MiB));

  const cpStart = performance.now();
  await promisify(execFile)('cp', ['-a', join(source, 'tree'), join(source, 'copy')]);
  const cpSeconds = (performance.now() - cpStart) / 1000;

  const created = await f.admin.post<ServerDetail>('/servers', { name: 'bench', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB, diskBytes: 8 * GiB } });
  await waitForServer(f.admin, created.body.id, (s) => s.phase === 'READY', 'READY');
  const s = await sftpConnect(f.t.controller.sftpPort!, `admin.${created.body.id.slice(0, 12)}`, { password: 'correct-horse-battery' });
  await s.mkdir('/tree');
  for (let d = 0; d < 16; d += 1) await s.mkdir(`/tree/d${d}`);
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 20);
  const start = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < names.length) {
      const name = names[next++];
      await new Promise<void>((resolve, reject) => s.sftp.fastPut(join(source, 'tree', name), `/tree/${name}`, (err) => (err ? reject(err) : resolve())));
    }
  }));
  const sftpSeconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  s.end();
  const mb = (files * MiB) / 1e6;
  console.log(`files: ${files} × 1 MiB (${mb.toFixed(0)} MB)`);
  console.log(`cp -a:  ${(mb / cpSeconds).toFixed(1)} MB/s (${cpSeconds.toFixed(2)} s)`);
  console.log(`sftp:   ${(mb / sftpSeconds).toFixed(1)} MB/s (${sftpSeconds.toFixed(2)} s), ${(cpSeconds / sftpSeconds * 100).toFixed(1)}% of cp -a (cp is ${(sftpSeconds / cpSeconds).toFixed(1)}× faster)`);
  console.log(`peak RSS of the process (Controller and client): ${(peakRss / MiB).toFixed(0)} MiB`);
} finally {
  await f.dispose();
  await rm(source, { recursive: true, force: true });
}
