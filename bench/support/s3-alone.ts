import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { MiB } from './process-rss.js';

/**
 * The client of `s3Alone`, run in a process of its own: PUTs `count` objects of `bytes` random
 * bytes to `endpoint/bucket`, `concurrency` at once, as the Agent does (raw bytes, Content-Length,
 * no signature: s3rver checks none); prints its own CPU seconds.
 */
const client = `
const { request } = require('node:http');
const { randomBytes } = require('node:crypto');
const [endpoint, bucket, count, bytes, concurrency] = process.argv.slice(1);
const body = randomBytes(Number(bytes));
let next = 0;
const put = (i) => new Promise((resolve, reject) => {
  const req = request(endpoint + '/' + bucket + '/alone/' + i, { method: 'PUT', headers: { 'content-length': body.length, 'x-amz-meta-cairn-encoding': 'identity' } }, (res) => {
    res.resume();
    res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error('answered ' + res.statusCode))));
  });
  req.on('error', reject);
  req.end(body);
});
Promise.all(Array.from({ length: Number(concurrency) }, async () => { while (next < Number(count)) await put(next++); }))
  .then(() => { const c = process.cpuUsage(); process.stdout.write(String((c.user + c.system) / 1e6)); }, (e) => { console.error(e); process.exit(1); });
`;

/**
 * What the local S3 server alone does with a world's bytes, without Cairn: `count` objects of
 * `bytes` PUT by a plain HTTP client in another process, `concurrency` at once (the Agent's twelve),
 * timed, with the CPU seconds of this process (the server's) and of the client.
 */
export async function s3Alone(endpoint: string, bucket: string, count: number, bytes: number, concurrency = 12): Promise<string> {
  const before = process.cpuUsage();
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', client, endpoint, bucket, String(count), String(bytes), String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  const [code] = await once(child, 'exit') as [number | null];
  if (code !== 0) throw new Error(`the S3 client exited ${code}`);
  const seconds = (performance.now() - started) / 1000;
  const spent = process.cpuUsage(before);
  return `${((count * bytes) / 1e6 / seconds).toFixed(1)} MB/s (${(count * bytes) / MiB} MiB in ${count} PUTs, ${concurrency} at once, ${seconds.toFixed(1)} s); CPU s3rver (bench process) ${((spent.user + spent.system) / 1e6).toFixed(2)} s, client ${Number(out).toFixed(2)} s`;
}
