/**
 * Console and files benchmark, against the built Controller and a real Agent, each in its own
 * process (so the Controller's memory is its own):
 * - console latency from a game process's stdout to SSE clients: a tiny template ("ticker",
 *   seeded next to the simcraft install) prints lines stamped with the time they were written, at
 *   BENCH_LINES_PER_SECOND (default 1,000) for BENCH_SECONDS (default 10), to 4 console clients;
 *   p50/p99/max of (received − written) over every line every client got;
 * - a 64 MiB upload Controller → Agent: MB/s and the Controller's peak RSS while it runs (sampled
 *   from /proc every 10 ms), and the download back for comparison;
 * - 50 uploads of 8 MiB at once (25 users, 2 each), BENCH_UPLOAD_BURSTS times (default 3) after a warm-up: the
 *   Controller's peak RSS over its RSS at rest (after a full GC, asked for with SIGUSR2), read from
 *   the kernel's high-water mark so no short peak is missed.
 * Run with `npm run bench console-files`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../test/support/api-types.js';
import { adminSession } from './support/admin-session.js';

const MiB = 1024 * 1024;
const linesPerSecond = Number(process.env.BENCH_LINES_PER_SECOND ?? 1000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const bursts = Number(process.env.BENCH_UPLOAD_BURSTS ?? 3);
const clients = 4;
const now = () => performance.timeOrigin + performance.now();

/** Prints `Done`, then on `burst <rate> <seconds>` lines `tick <n> <epoch ms>` at that rate; `stop` exits. */
const ticker = `import { createInterface } from 'node:readline';
const now = () => performance.timeOrigin + performance.now();
console.log('Done (0.001s)! For help, type "help"');
let timer;
createInterface({ input: process.stdin }).on('line', (line) => {
  const [cmd, a, b] = line.trim().split(' ');
  if (cmd === 'stop') process.exit(0);
  if (cmd !== 'burst') return;
  const rate = Number(a), total = Math.round(Number(a) * Number(b)), start = now();
  let sent = 0;
  clearInterval(timer);
  timer = setInterval(() => {
    const due = Math.min(total, Math.floor(((now() - start) * rate) / 1000));
    for (; sent < due; sent++) process.stdout.write('tick ' + sent + ' ' + now().toFixed(3) + '\\n');
    if (sent >= total) { clearInterval(timer); console.log('burst done'); }
  }, 1);
});
`;

const tickerTemplate = {
  id: 'ticker', name: 'Ticker (benchmark)', kind: 'GAME_SERVER', networkMember: false, platform: 'paper', versions: ['1'],
  install: { source: 'builtin', program: 'simcraft', file: 'simcraft.mjs' },
  seedFiles: [{ path: 'ticker.mjs', content: ticker }],
  run: { command: '{node}', args: ['ticker.mjs'] },
  readyPattern: 'Done \\(.*\\)! For help', stopCommand: 'stop', stopTimeoutSeconds: 5,
  config: { file: 'server.properties', format: 'properties', managed: { 'server-port': '{port}' } },
};

/** Lets the bench ask a process for a full GC (SIGUSR2, which Node and Cairn leave unused), so baselines hold no garbage. */
const gcOnSignal = `data:text/javascript,process.on('SIGUSR2', () => globalThis.gc())`;

function spawnProgram(script: string, args: string[], nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, script, ...args], { env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
}

async function statusKib(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(await readFile(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

const rssBytes = (pid: number) => statusKib(pid, 'VmRSS');

/** A full GC in the process, then its RSS once it has settled (two equal samples 50 ms apart). */
async function settledRss(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  let last = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const rss = await rssBytes(pid);
    if (rss === last) return rss;
    last = rss;
  }
}

/**
 * The process's peak RSS while `work` runs: the kernel's high-water mark (VmHWM, reset first through
 * clear_refs) so no short peak falls between samples, cross-checked by sampling VmRSS every 50 ms.
 */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; baseline: number; peak: number; sampledPeak: number }> {
  const baseline = await settledRss(pid);
  await writeFile(`/proc/${pid}/clear_refs`, '5');
  let sampledPeak = baseline;
  const sampler = setInterval(() => void rssBytes(pid).then((rss) => (sampledPeak = Math.max(sampledPeak, rss))), 50);
  try {
    const result = await work();
    return { result, baseline, peak: await statusKib(pid, 'VmHWM'), sampledPeak };
  } finally {
    clearInterval(sampler);
  }
}

/** A failed fetch's cause (EPIPE, ECONNRESET...), or its message. */
const errorCode = (e: unknown) => {
  const cause = e instanceof Error ? (e.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? String(e);
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Reads one console stream, recording each tick's latency; resolves on `burst done`. */
async function consoleClient(url: string, cookie: string, latencies: number[], ready: () => void): Promise<number> {
  const res = await fetch(url, { headers: { cookie, accept: 'text/event-stream' } });
  if (!res.ok) throw new Error(`console stream refused: ${res.status} ${await res.text()}`);
  ready();
  const decoder = new TextDecoder();
  let buffer = '';
  let got = 0;
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    const at = now();
    buffer += decoder.decode(piece, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (!block.startsWith('event: line') || !data) continue;
      const text = (JSON.parse(data.slice(6)) as { text: string }).text;
      if (text.includes('burst done')) return got;
      const match = /tick \d+ ([\d.]+)$/.exec(text);
      if (!match) continue;
      latencies.push(at - Number(match[1]));
      got++;
    }
  }
  return got;
}

/** Session cookies of `count` new users, each an operator of the team (signed in, first password changed). */
async function operatorCookies(api: string, call: <T>(method: string, path: string, body?: unknown) => Promise<T>, teamId: string, count: number): Promise<string[]> {
  const roles = await call<{ items: { id: string; name: string; builtin: boolean }[] }>('GET', '/roles?limit=200');
  const operator = roles.items.find((r) => r.builtin && r.name === 'operator')!.id;
  const cookies: string[] = [];
  for (let i = 0; i < count; i++) {
    const username = `uploader${i}`;
    const user = await call<{ id: string }>('POST', '/users', { username, email: `${username}@example.com`, displayName: username, password: 'first-password-1' });
    await call('PUT', `/teams/${teamId}/members/${user.id}`, { roleIds: [operator] });
    const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: 'first-password-1' }) });
    const cookie = /(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1];
    await fetch(`${api}/me/password`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ currentPassword: 'first-password-1', newPassword: 'second-password-2' }) });
    cookies.push(cookie);
  }
  return cookies;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-console-'));
  const templatesDir = join(dir, 'templates');
  await mkdir(templatesDir);
  await writeFile(join(templatesDir, 'ticker.json'), JSON.stringify(tickerTemplate));
  const controller = spawnProgram('dist/src/controller/main.js', ['--data-dir', join(dir, 'controller'), '--http-port', '0', '--grpc-port', '0', '--templates-dir', templatesDir], ['--expose-gc', '--import', gcOnSignal]);
  let agent: ChildProcess | undefined;
  try {
    const { grpcPort, api, cookie, call } = await adminSession(controller.stdout!, join(dir, 'controller'));
    const team = await call<Team>('POST', '/teams', { name: 'bench' });
    const node = await call<EnrollmentIssued>('POST', '/nodes', { name: 'bench-node' });
    agent = spawnProgram('dist/src/agent/main.js', [
      '--controller', `127.0.0.1:${grpcPort}`, '--data-dir', join(dir, 'agent'), '--enrollment-token', node.enrollmentToken,
      '--cpu-millis', '8000', '--memory-bytes', String(8 * 1024 * MiB), '--bind-address', '127.0.0.1',
    ]);
    await poll('the Node', async () => ((await call<Node>('GET', `/nodes/${node.node.id}`)).status.connectionState === 'HEALTHY' ? true : undefined));
    const server = await call<ServerDetail>('POST', '/servers', { name: 'ticker', teamId: team.id, software: { template: 'ticker', version: '1' }, resources: { cpuMillis: 1000, memoryBytes: 1024 * MiB } });
    await poll('READY', async () => ((await call<ServerDetail>('GET', `/servers/${server.id}`)).phase === 'READY' ? true : undefined));
    await call('POST', `/servers/${server.id}/start`);
    await poll('RUNNING', async () => ((await call<ServerDetail>('GET', `/servers/${server.id}`)).status.runtimeState === 'RUNNING' ? true : undefined));

    // Console latency.
    const latencies: number[] = [];
    let opened = 0;
    const allOpen = new Promise<void>((resolve) => {
      const readers = Array.from({ length: clients }, () => consoleClient(`${api}/servers/${server.id}/console?tail=0`, cookie, latencies, () => {
        if (++opened === clients) resolve();
      }));
      void Promise.all(readers).then((counts) => (received = counts));
    });
    let received: number[] = [];
    await allOpen;
    await call('POST', `/servers/${server.id}/console/commands`, { command: `burst ${linesPerSecond} ${seconds}` });
    await poll('every client to see the burst end', async () => (received.length === clients ? true : undefined), (seconds + 30) * 1000);
    latencies.sort((a, b) => a - b);
    const expected = Math.round(linesPerSecond * seconds) * clients;
    process.stdout.write(`console: ${linesPerSecond} lines/s for ${seconds} s to ${clients} clients: ${latencies.length}/${expected} lines received\n`);
    process.stdout.write(`console latency stdout → SSE client: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, max ${latencies[latencies.length - 1].toFixed(2)} ms\n`);

    // 64 MiB upload and download.
    const data = randomBytes(64 * MiB);
    const baseline = await rssBytes(controller.pid!);
    let peak = baseline;
    const sampler = setInterval(() => void rssBytes(controller.pid!).then((rss) => (peak = Math.max(peak, rss))), 10);
    const started = now();
    const put = await fetch(`${api}/servers/${server.id}/files/content?path=big.bin`, { method: 'PUT', headers: { cookie, 'content-type': 'application/octet-stream' }, body: data });
    const uploadMs = now() - started;
    clearInterval(sampler);
    if (put.status !== 204) throw new Error(`upload failed: ${put.status} ${await put.text()}`);
    const downStart = now();
    const got = Buffer.from(await (await fetch(`${api}/servers/${server.id}/files/content?path=big.bin`, { headers: { cookie } })).arrayBuffer());
    const downloadMs = now() - downStart;
    const same = createHash('sha256').update(got).digest('hex') === createHash('sha256').update(data).digest('hex');
    const mb = (64 * MiB) / 1e6;
    process.stdout.write(`upload 64 MiB Controller → Agent: ${(mb / (uploadMs / 1000)).toFixed(1)} MB/s (${uploadMs.toFixed(0)} ms); Controller RSS ${(baseline / MiB).toFixed(0)} MiB before, peak ${(peak / MiB).toFixed(0)} MiB during (+${((peak - baseline) / MiB).toFixed(1)} MiB)\n`);
    process.stdout.write(`download 64 MiB Agent → client: ${(mb / (downloadMs / 1000)).toFixed(1)} MB/s (${downloadMs.toFixed(0)} ms), checksum ${same ? 'matches' : 'DIFFERS'}\n`);
    if (!same) process.exitCode = 1;

    // 50 uploads of 8 MiB at once from 25 operators (a user has at most 2 in flight): the upload slots (8) and
    // back-pressure bound the Controller's memory. A first smaller burst warms the path up (buffers, JIT), so the
    // baseline is the Controller at rest after uploads.
    const uploaders = await operatorCookies(api, call, team.id, 25);
    const eight = randomBytes(8 * MiB);
    const burst = (count: number, prefix: string) => Promise.all(Array.from({ length: count }, (_, i) =>
      fetch(`${api}/servers/${server.id}/files/content?path=${prefix}-${i}.bin`, { method: 'PUT', headers: { cookie: uploaders[i % uploaders.length], 'content-type': 'application/octet-stream' }, body: eight })
        .then((r) => String(r.status), (e: unknown) => `error ${errorCode(e)}`)));
    const cold = await settledRss(controller.pid!);
    const warmup = await burst(8, 'warmup');
    const mib = (bytes: number) => (bytes / MiB).toFixed(1);
    process.stdout.write(`warm-up, 8 concurrent uploads of 8 MiB: statuses ${warmup.join(' ')}; Controller RSS at rest ${mib(cold)} MiB before it\n`);
    const growths: number[] = [];
    for (let round = 1; round <= bursts; round++) {
      const burstStart = now();
      const measured = await peakRssDuring(controller.pid!, () => burst(50, `burst-${round}`));
      const counts = measured.result.reduce<Record<string, number>>((acc, status) => ({ ...acc, [status]: (acc[status] ?? 0) + 1 }), {});
      growths.push(measured.peak - measured.baseline);
      process.stdout.write(`50 concurrent uploads of 8 MiB (round ${round}): ${((now() - burstStart) / 1000).toFixed(1)} s, statuses ${JSON.stringify(counts)}; Controller RSS ${mib(measured.baseline)} MiB at rest (after GC), peak ${mib(measured.peak)} MiB (VmHWM; sampled every 50 ms: ${mib(measured.sampledPeak)}): +${mib(measured.peak - measured.baseline)} MiB\n`);
    }
    process.stdout.write(`upload burst RSS growth over ${bursts} rounds: max +${mib(Math.max(...growths))} MiB\n`);
    await call('POST', `/servers/${server.id}/stop`);
    await poll('STOPPED', async () => ((await call<ServerDetail>('GET', `/servers/${server.id}`)).status.runtimeState === 'STOPPED' ? true : undefined));
  } finally {
    agent?.kill('SIGKILL');
    controller.kill('SIGTERM');
    await once(controller, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
