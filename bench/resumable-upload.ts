/**
 * Large-file upload throughput: one file of BENCH_UPLOAD_MIB MiB (default 1,024: 1 GiB) sent to a
 * real Agent through the Controller, by the resumable API (16 MiB PUTs, streamed from disk) and by
 * SFTP (ssh2's fastPut), beside `cp -a` of the same file on the same disk in the same run. The
 * Controller runs in this process (test/support/fleet.ts) with the clients: the RSS printed is both,
 * an upper bound for the Controller. Run with `npm run bench resumable-upload`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { Upload } from '../src/controller/schemas/file-uploads.js';
import type { ServerDetail } from '../test/support/api-types.js';
import { GiB, startFleet, waitForServer } from '../test/support/fleet.js';
import { sftpConnect } from '../test/support/sftp-client.js';

const MiB = 1024 * 1024;
const size = Number(process.env.BENCH_UPLOAD_MIB ?? 1024) * MiB;
const piece = 16 * MiB;

/** Peak RSS of this process while `work` runs, sampled every 20 ms. */
async function measured(work: () => Promise<void>): Promise<{ seconds: number; peakRss: number }> {
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 20);
  const start = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return { seconds: (performance.now() - start) / 1000, peakRss };
}

const source = await mkdtemp(join(tmpdir(), 'cairn-bench-upload-'));
const f = await startFleet({ extraArgs: ['--sftp-port', '0'] });
try {
  const file = join(source, 'world.bin');
  const out = await open(file, 'w');
  for (let at = 0; at < size; at += piece) await out.write(randomBytes(Math.min(piece, size - at)));
  await out.close();

  const cp = await measured(async () => { await promisify(execFile)('cp', ['-a', file, join(source, 'copy.bin')]); });

  const created = await f.admin.post<ServerDetail>('/servers', { name: 'bench', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB, diskBytes: 8 * GiB } });
  const id = created.body.id;
  await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
  global.gc?.();

  const api = await measured(async () => {
    const begun = await f.admin.post<Upload>(`/servers/${id}/files/uploads`, { path: 'api.bin', size });
    if (begun.status !== 201) throw new Error(`begin: ${begun.status} ${begun.text}`);
    for (let at = 0; at < size; at += piece) {
      const length = Math.min(piece, size - at);
      const req = request(`${f.t.baseUrl}/api/v1/servers/${id}/files/uploads/${begun.body.id}?offset=${at}`, {
        method: 'PUT', headers: { cookie: f.admin.auth.cookie!, 'content-type': 'application/octet-stream', 'content-length': String(length) },
      });
      const answered = new Promise<number>((resolve, reject) => {
        req.once('response', (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        });
        req.once('error', reject);
      });
      await pipeline(createReadStream(file, { start: at, end: at + length - 1 }), req);
      const status = await answered;
      if (status !== 200) throw new Error(`PUT at ${at}: ${status}`);
    }
  });
  global.gc?.();

  const s = await sftpConnect(f.t.controller.sftpPort!, `admin.${id.slice(0, 12)}`, { password: 'correct-horse-battery' });
  const sftp = await measured(() => new Promise<void>((resolve, reject) => s.sftp.fastPut(file, '/sftp.bin', (err) => (err ? reject(err) : resolve()))));
  s.end();

  const mb = size / 1e6;
  const rate = (seconds: number) => `${(mb / seconds).toFixed(1)} MB/s (${seconds.toFixed(2)} s)`;
  console.log(`one file of ${size / MiB} MiB (${mb.toFixed(0)} MB)`);
  console.log(`cp -a:            ${rate(cp.seconds)}`);
  console.log(`resumable API:    ${rate(api.seconds)}, ${(cp.seconds / api.seconds * 100).toFixed(1)}% of cp -a; peak RSS (Controller and client) ${(api.peakRss / MiB).toFixed(0)} MiB`);
  console.log(`SFTP (fastPut):   ${rate(sftp.seconds)}, ${(cp.seconds / sftp.seconds * 100).toFixed(1)}% of cp -a; peak RSS (Controller and client) ${(sftp.peakRss / MiB).toFixed(0)} MiB`);
  console.log(`RSS of the process before the uploads (while cp -a ran): ${(cp.peakRss / MiB).toFixed(0)} MiB`);
} finally {
  await f.dispose();
  await rm(source, { recursive: true, force: true });
}
