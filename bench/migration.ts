/**
 * Migration benchmark, against the built Controller and two real Agents on loopback, each in its
 * own process: a running simcraft server with a world of BENCH_WORLD_MIB (default 1024) MiB of
 * incompressible region files is migrated from one Agent to the other. Measured:
 * - how long players cannot connect: from the first refused TCP connect to the old address:port
 *   to the first accepted connect to the new one (both polled every 10 ms);
 * - the whole migration (202 to READY on the target) and when each step was first seen;
 * - the Controller's and both Agents' RSS before and their peaks during the migration (sampled from /proc every 10 ms);
 * - the first copy's MB/s (the world's bytes over the `copying` step: the snapshot's open and the
 *   copy) beside `cp -a` of the same tree on the same filesystem, synced, in the same run, and
 *   their ratio; and which path the copy took;
 * - each process's CPU seconds (user and system, from /proc) from the 202 until the step after `copying` is first
 *   seen, per GiB of world: on a shared machine the figure that does not move with others' load.
 * Run with `npm run bench migration`.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../test/support/api-types.js';
import { killGames } from '../test/support/fleet.js';
import { writeWorld } from '../test/support/world-files.js';
import { adminSession } from './support/admin-session.js';
import { countersOf, type Counters } from './support/process-io.js';
import { MiB, peakRss, rssText, spawnProgram } from './support/process-rss.js';

const worldMiB = Number(process.env.BENCH_WORLD_MIB ?? 1024);
const run = promisify(execFile);
const now = () => performance.now();
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-migration-'));
  const controller = spawnProgram('dist/src/controller/main.js', ['--data-dir', join(dir, 'controller'), '--http-port', '0', '--grpc-port', '0']);
  const agents: ChildProcess[] = [];
  try {
    const { grpcPort, call } = await adminSession(controller.stdout!, join(dir, 'controller'));
    const team = await call<Team>('POST', '/teams', { name: 'bench' });
    const nodes: { id: string; dir: string }[] = [];
    for (const [i, ports] of ['29400-29499', '29500-29599'].entries()) {
      const node = await call<EnrollmentIssued>('POST', '/nodes', { name: `bench-${i + 1}` });
      const agentDir = join(dir, `agent-${i + 1}`);
      agents.push(spawnProgram('dist/src/agent/main.js', [
        '--controller', `127.0.0.1:${grpcPort}`, '--data-dir', agentDir, '--enrollment-token', node.enrollmentToken, '--game-ports', ports,
        '--cpu-millis', '8000', '--memory-bytes', String(8 * 1024 * MiB), '--bind-address', '127.0.0.1',
      ]));
      nodes.push({ id: node.node.id, dir: agentDir });
      await poll(`Node ${i + 1}`, async () => ((await call<Node>('GET', `/nodes/${node.node.id}`)).acceptsPlacements ? true : undefined));
    }
    const get = () => call<ServerDetail>('GET', `/servers/${server.id}`);
    const server = await call<ServerDetail>('POST', '/servers', { name: 'world', teamId: team.id, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 1000, memoryBytes: 1024 * MiB }, nodeId: nodes[0].id });
    await poll('READY', async () => ((await get()).phase === 'READY' ? true : undefined));
    const root = join(nodes[0].dir, 'servers', server.id, 'root');
    const files = await writeWorld(root, worldMiB * MiB);
    // The baseline: the same tree copied by cp -a on the same filesystem, and synced, as the migration's stage is.
    await run('sync');
    const cpStarted = now();
    await run('cp', ['-a', root, join(dir, 'cp-baseline')]);
    await run('sync');
    const cpMs = now() - cpStarted;
    await rm(join(dir, 'cp-baseline'), { recursive: true, force: true });
    await call('POST', `/servers/${server.id}/start`);
    const running = await poll('RUNNING', async () => {
      const s = await get();
      return s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED' ? s : undefined;
    });
    const oldPort = running.gamePort!;
    if (!(await accepts(oldPort))) throw new Error('the game port does not accept connections before the migration');
    process.stdout.write(`world: ${worldMiB} MiB in ${files.length} files; server RUNNING on port ${oldPort}; load average ${load()}\n`);

    const steps = new Map<string, number>();
    let newPort: number | undefined;
    let copyPath: string | undefined;
    let closedAt: number | undefined;
    let openedAt: number | undefined;
    const pids = { Controller: controller.pid!, 'source Agent': agents[0].pid!, 'target Agent': agents[1].pid! };
    const counters = () => Promise.all(Object.entries(pids).map(async ([name, pid]) => [name, await countersOf(pid)] as const));
    const cpuBefore = await counters();
    let cpuCopied: (readonly [string, Counters])[] | undefined;
    const started = now();
    await call('POST', `/servers/${server.id}/migrate`, { nodeId: nodes[1].id });
    // Baselines are taken just after the 202: the copy has barely begun.
    const measured = peakRss(pids, () => poll('the migration', async () => {
      const s = await get();
      if (s.workflow && !steps.has(s.workflow.step)) {
        steps.set(s.workflow.step, now() - started);
        // `stopping` can pass between two polls (a server that stops at once): the next step seen ends the copy then.
        if (s.workflow.step !== 'reserving' && s.workflow.step !== 'copying' && !cpuCopied) cpuCopied = await counters();
      }
      copyPath ??= s.workflow?.copyPath;
      if (s.nodeId === nodes[1].id && s.gamePort) newPort = s.gamePort;
      return s.phase === 'READY' && s.status.runtimeState === 'RUNNING' ? s : undefined;
    }, 600_000), 10);
    const watchPort = (async () => {
      while (openedAt === undefined && now() - started < 600_000) {
        if (closedAt === undefined) {
          if (!(await accepts(oldPort))) closedAt = now();
        } else if (newPort !== undefined && (await accepts(newPort))) {
          openedAt = now();
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const { result: done, rss } = await measured;
    const totalMs = now() - started;
    await watchPort;
    if (done.nodeId !== nodes[1].id) throw new Error(`the migration did not move the server: ${JSON.stringify(done.conditions)}`);

    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    process.stdout.write(`steps first seen at (s after the 202): ${[...steps].map(([step, at]) => `${step} ${seconds(at)}`).join(', ')}\n`);
    const mbps = (ms: number) => (worldMiB * MiB) / 1e6 / (ms / 1000);
    const copyEnd = [...steps].find(([step]) => step !== 'reserving' && step !== 'copying');
    const copyingMs = (copyEnd?.[1] ?? NaN) - (steps.get('copying') ?? NaN);
    process.stdout.write(`first copy (${copyPath ?? 'path not seen'}): ${seconds(copyingMs)} s, ${mbps(copyingMs).toFixed(0)} MB/s; cp -a of the same tree, synced: ${seconds(cpMs)} s, ${mbps(cpMs).toFixed(0)} MB/s; ratio ${(cpMs / copyingMs).toFixed(2)}\n`);
    if (cpuCopied) {
      const perGiB = (i: number, part: 'cpu' | 'system') => (cpuCopied![i][1][part] - cpuBefore[i][1][part]) / (worldMiB / 1024);
      process.stdout.write(`CPU seconds per GiB over the first copy (202 → ${copyEnd?.[0] ?? 'the next step'} seen): ${cpuBefore.map(([name], i) => `${name} ${perGiB(i, 'cpu').toFixed(2)} (${perGiB(i, 'system').toFixed(2)} in the kernel)`).join(', ')}\n`);
    }
    process.stdout.write(`migration of ${worldMiB} MiB: ${seconds(totalMs)} s until READY and RUNNING on the target (${((worldMiB * MiB) / 1e6 / (totalMs / 1000)).toFixed(0)} MB/s overall)\n`);
    process.stdout.write(`game port closed (old ${oldPort} refused → new ${newPort} accepts): ${closedAt !== undefined && openedAt !== undefined ? `${seconds(openedAt - closedAt)} s` : 'not measured'}\n`);
    process.stdout.write(`${rssText(rss)}; load average ${load()}\n`);
  } finally {
    // A clean stop, so a profiled Agent writes its profile; one that does not stop within 10 s is killed.
    await Promise.all(agents.map(async (agent) => {
      if (agent.exitCode !== null || agent.signalCode !== null) return;
      agent.kill('SIGTERM');
      await Promise.race([once(agent, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))]);
      agent.kill('SIGKILL');
    }));
    controller.kill('SIGTERM');
    await once(controller, 'exit');
    // The games' supervisors outlive a killed Agent by design: they go too.
    await killGames(dir);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
