/**
 * SFTP upload throughput: a world of 1,000 files totalling BENCH_SFTP_MIB MiB (default 1,024:
 * 1 GiB; nested folders, sizes varied, random bytes) uploaded with OpenSSH's `sftp put -r` to a
 * real Agent through a Controller in its own process, beside `cp -a` of the same tree on the same
 * disk in the same run (with and without a `sync` after it: the Agent makes each file durable
 * before it appears), the ratio, and the peak RSS of the Controller and the Agent while serving it.
 * Run with `npm run bench sftp-upload`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { EnrollmentIssued, Node, ServerDetail, Team } from '../test/support/api-types.js';
import { AgentProcess } from '../test/support/agent-process.js';
import { ControllerProcess, setUpAdminOf } from '../test/support/controller-process.js';
import { GiB, killGames } from '../test/support/fleet.js';
import { privateGamePorts } from '../test/support/game-ports.js';
import { ed25519KeyPair } from '../test/support/sftp-client.js';
import { openSshBatch, writeWorld } from '../test/support/sftp-world.js';
import { waitFor } from '../test/support/wait-for.js';
import { MiB, peakRss, rssText } from './support/process-rss.js';

const totalBytes = Number(process.env.BENCH_SFTP_MIB ?? 1024) * MiB;
const files = 1000;
const run = promisify(execFile);
const timed = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
};

const work = await mkdtemp(join(tmpdir(), 'cairn-bench-sftp-'));
const controllerDir = join(work, 'controller');
const agentDir = join(work, 'agent');
let controller: ControllerProcess | undefined;
let agent: AgentProcess | undefined;
try {
  await writeWorld(join(work, 'import'), { files, totalBytes });
  const cpSeconds = await timed(() => run('cp', ['-a', join(work, 'import'), join(work, 'copy')]));
  await run('rm', ['-rf', join(work, 'copy')]);
  await run('sync');
  const cpSyncSeconds = await timed(async () => {
    await run('cp', ['-a', join(work, 'import'), join(work, 'copy')]);
    await run('sync');
  });
  await run('rm', ['-rf', join(work, 'copy')]);

  controller = await ControllerProcess.start(controllerDir, 0, { extraArgs: ['--sftp-port', '0'] });
  const { admin } = await setUpAdminOf(controller, controllerDir);
  const teamId = (await admin.post<Team>('/teams', { name: 'Bench' })).body.id;
  const node = (await admin.post<EnrollmentIssued>('/nodes', { name: 'bench-node' })).body;
  agent = AgentProcess.start({
    grpcPort: controller.grpcPort, dataDir: agentDir, gamePorts: await privateGamePorts(), enrollmentToken: node.enrollmentToken,
    extra: ['--cpu-millis', '8000', '--memory-bytes', String(8 * GiB), '--bind-address', '127.0.0.1'], env: { CAIRN_LOG_LEVEL: 'warn' },
  });
  await waitFor(async () => (await admin.get<Node>(`/nodes/${node.node.id}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 120_000, what: 'the Agent HEALTHY' });
  const created = await admin.post<ServerDetail>('/servers', { name: 'bench', teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB, diskBytes: 8 * GiB } });
  const ready = await waitFor(async () => {
    const detail = (await admin.get<ServerDetail>(`/servers/${created.body.id}`)).body;
    return detail.phase === 'READY' ? detail : undefined;
  }, { timeoutMs: 120_000, what: 'the server READY' });
  const keys = ed25519KeyPair();
  await admin.post('/me/ssh-keys', { name: 'bench', publicKey: keys.public });
  await writeFile(join(work, 'id'), keys.private, { mode: 0o600 });

  const { result: sftpSeconds, rss } = await peakRss({ Controller: controller.child.pid!, Agent: agent.child.pid! }, () => timed(async () => {
    const put = await openSshBatch({ port: ready.sftp!.port, user: ready.sftp!.username, keyFile: join(work, 'id'), batch: ['put -r import /import'], cwd: work, timeoutMs: 1_800_000 });
    if (put.status !== 0) throw new Error(`sftp exited ${put.status}: ${put.stderr}`);
  }));
  const mb = totalBytes / 1e6;
  const rate = (seconds: number) => `${(mb / seconds).toFixed(1)} MB/s (${seconds.toFixed(2)} s)`;
  console.log(`world: ${files} files, ${mb.toFixed(0)} MB, nested folders, sizes varied`);
  console.log(`cp -a:          ${rate(cpSeconds)}`);
  console.log(`cp -a && sync:  ${rate(cpSyncSeconds)}`);
  console.log(`sftp put -r:    ${rate(sftpSeconds)}; cp -a is ${(sftpSeconds / cpSeconds).toFixed(1)}× faster, cp -a && sync ${(sftpSeconds / cpSyncSeconds).toFixed(1)}×`);
  console.log(`while serving it: ${rssText(rss)}`);
} finally {
  await agent?.kill();
  await killGames(agentDir);
  await controller?.kill('SIGTERM');
  await rm(work, { recursive: true, force: true });
}
