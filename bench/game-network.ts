/**
 * A game's own network: what it costs (contract: "Containment", "A game's own network"). As root,
 * with the Agent's GameNetwork: the extra time a start pays for its namespace (made afresh each
 * start, with the Node's table re-rendered) and for entering it, then, for one connection from the
 * Node to 127.0.0.1:port, the throughput and the connection setup time through the published port
 * against a listener on the host's own network. Run with `npm run bench game-network`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GameNetwork } from '../src/agent/isolation/game-net.js';
import { nodeTableName } from '../src/agent/isolation/game-net-plan.js';
import { findExecutable } from '../src/agent/isolation/isolation-probe.js';
import { runCommand } from '../src/agent/isolation/net-commands.js';
import { silentLogger } from '../src/shared/logger.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const connects = Number(process.env.BENCH_CONNECTS ?? 500);
const bytes = Number(process.env.BENCH_MIB ?? 512) * 2 ** 20;
const gamePorts = { first: 47600, last: 47699 };

const [ip, nft, nsenter] = await Promise.all(['ip', 'nft', 'nsenter'].map(findExecutable));
if (process.getuid?.() !== 0 || !ip || !nft || !nsenter) {
  console.log('game-network: needs root with ip, nft and nsenter; skipped');
  process.exit(0);
}
const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-net-'));
await mkdir(join(dataDir, 'servers', 'bench'), { recursive: true });
const network = await GameNetwork.load({ ip, nft, nsenter }, { bindAddress: '127.0.0.1', gamePorts, egressAllow: [], nameservers: [] }, dataDir, silentLogger);

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n: number) => n.toFixed(2);

async function timed(command: string, args: string[]): Promise<number> {
  const start = process.hrtime.bigint();
  await runCommand(command, args);
  return ms(start);
}

/** A sink that counts nothing and answers nothing: it reads until the client ends. */
const sinkScript = (port: number) => `require('node:net').createServer((s) => { s.resume(); s.on('end', () => s.end()); }).listen(${port}, '0.0.0.0', () => console.log('up'))`;

async function sink(port: number, netns: string | null): Promise<ChildProcess> {
  const argv = [process.execPath, '-e', sinkScript(port)];
  const child = spawn(netns ? nsenter! : argv[0], netns ? [`--net=${netns}`, '--', ...argv] : argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout, 'data');
  return child;
}

function connectOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const socket = connect({ host: '127.0.0.1', port });
    const deadline = setTimeout(() => reject(new Error(`connect to ${port} took over 3 s`)), 3000);
    socket.once('connect', () => {
      clearTimeout(deadline);
      resolve(ms(start));
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

function throughput(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(1 << 20, 0x5a);
    const socket = connect({ host: '127.0.0.1', port });
    let sent = 0;
    let start = 0n;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      socket.end();
    };
    socket.once('connect', () => {
      start = process.hrtime.bigint();
      pump();
    });
    socket.once('close', () => resolve(bytes / 2 ** 20 / (ms(start) / 1000)));
    socket.once('error', reject);
    socket.resume();
  });
}

try {
  const plain: number[] = [];
  const boxed: number[] = [];
  for (let i = 0; i < rounds; i++) {
    plain.push(await timed('/bin/true', []));
    const start = process.hrtime.bigint();
    const path = await network.prepare('bench', [gamePorts.first]);
    await runCommand(nsenter, [`--net=${path}`, '--', '/bin/true']);
    boxed.push(ms(start));
  }
  console.log(`start (spawn of a trivial game), ms over ${rounds}: host network p50 ${fmt(pct(plain, 50))} p99 ${fmt(pct(plain, 99))}; own network p50 ${fmt(pct(boxed, 50))} p99 ${fmt(pct(boxed, 99))}; added p50 ${fmt(pct(boxed, 50) - pct(plain, 50))} (aim <= 50)`);

  const hostPort = gamePorts.first + 1;
  const inNs = await sink(gamePorts.first, join('/run/netns', 'cairn-bench'));
  const onHost = await sink(hostPort, null);
  try {
    const through = { host: await throughput(hostPort), own: await throughput(gamePorts.first) };
    console.log(`throughput, one connection, ${bytes / 2 ** 20} MiB: host network ${fmt(through.host)} MiB/s; published port ${fmt(through.own)} MiB/s; ratio ${fmt((100 * through.own) / through.host)}% (aim >= 90%)`);
    const setup = { host: [] as number[], own: [] as number[] };
    for (let i = 0; i < connects; i++) {
      setup.host.push(await connectOnce(hostPort));
      setup.own.push(await connectOnce(gamePorts.first));
    }
    console.log(`connection setup, ms over ${connects}: host network p50 ${fmt(pct(setup.host, 50))} p99 ${fmt(pct(setup.host, 99))}; published port p50 ${fmt(pct(setup.own, 50))} p99 ${fmt(pct(setup.own, 99))}; added p99 ${fmt(pct(setup.own, 99) - pct(setup.host, 99))} (aim <= 1)`);
  } finally {
    inNs.kill('SIGKILL');
    onHost.kill('SIGKILL');
  }
} finally {
  await network.remove('bench');
  await runCommand(nft, ['delete', 'table', 'ip', nodeTableName(gamePorts)]).catch(() => undefined);
  await rm(dataDir, { recursive: true, force: true });
}
