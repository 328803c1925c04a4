/**
 * Backups to the Controller (destination kind CONTROLLER), against the built Controller and a real
 * Agent, each in its own process:
 * - a world of BENCH_WORLD_MIB (default 1024) MiB of random bytes in 1 MiB region files, written
 *   into a simcraft server's root on the Agent;
 * - the first backup: every file read from the Agent's snapshot into the Controller's store;
 * - 1% of the files rewritten, then a second backup, which reads and stores only those;
 * - for each: MB/s (world bytes over the time from POST to SUCCEEDED), the bytes it stored, and the
 *   Controller's and the Agent's RSS (sampled from /proc every 20 ms) before and at their peaks;
 * - beside each first backup's MB/s, that of `cp -a` of the region files on the same filesystem,
 *   synced, measured just before it, and the ratio; beside the incremental, its share of the first's time;
 * - what each process read (rchar from /proc: an incremental backup reads the changed files, not
 *   the world) and the CPU seconds it spent (a cost the machine's other load does not change much).
 * Then the same world is backed up to a local S3-compatible server (s3rver, in this process) by
 * the Agent with presigned requests; the same bytes are PUT to s3rver by a bare HTTP client (its
 * own ceiling, no Cairn process involved); and the backup is restored from it.
 * Run with `npm run bench backups`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backup, BackupDestination, EnrollmentIssued, Node, ServerDetail, Team } from '../test/support/api-types.js';
import { startTestS3, s3rverAccessKeyId, type TestS3 } from '../test/support/s3-server.js';
import { adminSession } from './support/admin-session.js';
import { againstCp, cpRate, settle } from './support/disk-baseline.js';
import { countersDuring, countersText } from './support/process-io.js';
import { s3Alone } from './support/s3-alone.js';
import { MiB, peakRss, rssText, spawnProgram } from './support/process-rss.js';

const worldMiB = Number(process.env.BENCH_WORLD_MIB ?? 1024);
const fileMiB = 1;
const now = () => performance.now();

/**
 * Probes until it answers. With `intervalMs` 'scaled' the wait between probes grows with the time
 * already waited (2% of it, 10 to 100 ms): an incremental backup of half a second is timed to 10 ms,
 * and a first backup of several seconds is not slowed by the Controller answering a hundred polls a
 * second on the same two cores (10 ms polls cost it a third of a core).
 */
async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, intervalMs: number | 'scaled' = 50): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    const wait = intervalMs === 'scaled' ? Math.min(100, Math.max(10, (Date.now() - started) / 50)) : intervalMs;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-bench-backups-'));
  const controller = spawnProgram('dist/src/controller/main.js', ['--data-dir', join(dir, 'controller'), '--http-port', '0', '--grpc-port', '0', '--sftp-port', 'off']);
  let agent: ChildProcess | undefined;
  let s3: TestS3 | undefined;
  try {
    const { grpcPort, call } = await adminSession(controller.stdout!, join(dir, 'controller'));
    const team = await call<Team>('POST', '/teams', { name: 'bench' });
    const node = await call<EnrollmentIssued>('POST', '/nodes', { name: 'bench-node' });
    const agentDir = join(dir, 'agent');
    agent = spawnProgram('dist/src/agent/main.js', [
      '--controller', `127.0.0.1:${grpcPort}`, '--data-dir', agentDir, '--enrollment-token', node.enrollmentToken,
      '--cpu-millis', '8000', '--memory-bytes', String(8 * 1024 * MiB), '--bind-address', '127.0.0.1',
    ]);
    await poll('the Node', async () => ((await call<Node>('GET', `/nodes/${node.node.id}`)).status.connectionState === 'HEALTHY' ? true : undefined));
    const server = await call<ServerDetail>('POST', '/servers', { name: 'world', teamId: team.id, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 1000, memoryBytes: 1024 * MiB } });
    await poll('READY', async () => ((await call<ServerDetail>('GET', `/servers/${server.id}`)).phase === 'READY' ? true : undefined));

    const files = Math.round(worldMiB / fileMiB);
    const region = join(agentDir, 'servers', server.id, 'root', 'world', 'region');
    await mkdir(region, { recursive: true });
    const regionFile = (i: number) => join(region, `r.${i % 32}.${Math.floor(i / 32)}.mca`);
    for (let i = 0; i < files; i++) await writeFile(regionFile(i), randomBytes(fileMiB * MiB));
    process.stdout.write(`world: ${files} files of ${fileMiB} MiB of random bytes (${worldMiB} MiB)\n`);

    const worldBytes = files * fileMiB * MiB;
    const cpNow = () => cpRate(region, join(dir, 'cp-baseline'), worldBytes);

    const backup = async (label: string, destinationId?: string, cp?: number) => {
      await settle(dir);
      const started = now();
      const startedMono = process.hrtime.bigint() / 1000n;
      // To S3 the bench process counts too: the S3 server is in it.
      const pids = { Controller: controller.pid!, Agent: agent!.pid!, ...(destinationId ? { 's3rver (bench process)': process.pid } : {}) };
      const { result: { result, rss }, spent } = await countersDuring(pids, () => peakRss(pids, async () => {
        const taken = await call<Backup>('POST', `/servers/${server.id}/backups`, destinationId ? { destinationId } : {});
        return poll(`${label} backup`, async () => {
          const b = await call<Backup>('GET', `/backups/${taken.id}`);
          return b.state === 'SUCCEEDED' || b.state === 'FAILED' ? b : undefined;
        }, 30 * 60_000, 'scaled');
      }));
      const seconds = (now() - started) / 1000;
      // The monotonic clock the CPU profiles are stamped with (µs), to cut each process's profile to this backup.
      if (process.env.BENCH_CPU_PROF) process.stdout.write(`${label} backup: profile window ${startedMono} to ${process.hrtime.bigint() / 1000n} µs\n`);
      if (result.state !== 'SUCCEEDED') throw new Error(`${label} backup failed: ${result.error}`);
      const rate = result.sizeBytes / 1e6 / seconds;
      process.stdout.write(`${label} backup: ${cp ? againstCp(rate, cp) : `${rate.toFixed(1)} MB/s`} (${result.sizeBytes / MiB} MiB world in ${seconds.toFixed(1)} s, ${result.fileCount} files), stored ${(result.storedBytes / MiB).toFixed(1)} MiB (${((100 * result.storedBytes) / result.sizeBytes).toFixed(2)}% of the world); ${rssText(rss)}; ${countersText(spent)} (reads: files, sockets and the API's polls)\n`);
      return { ...result, seconds };
    };

    const first = await backup('first (full)', undefined, await cpNow());
    const changed = Math.max(1, Math.round(files / 100));
    for (let i = 0; i < changed; i++) await writeFile(regionFile((i * 97) % files), randomBytes(fileMiB * MiB));
    process.stdout.write(`changed ${changed} of ${files} files\n`);
    const second = await backup('second (incremental)');
    process.stdout.write(`incremental: ${second.seconds.toFixed(2)} s, ${(second.seconds / first.seconds).toFixed(3)} of the first backup's ${first.seconds.toFixed(2)} s (goal: at most 0.1)\n`);
    if (second.storedBytes >= second.sizeBytes * 0.05) {
      process.stdout.write('the incremental backup stored 5% of the world or more\n');
      process.exitCode = 1;
    }

    // The same world to a local S3-compatible server (s3rver, in this process: its CPU is this process's, not the Controller's).
    s3 = await startTestS3('cairn-backups', { front: false });
    const destination = await call<BackupDestination>('POST', '/backup-destinations', {
      name: 'bench-s3', kind: 'S3', endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, accessKeyId: s3rverAccessKeyId, secretAccessKey: 'S3RVER', forcePathStyle: true,
    });
    const toS3 = await backup('first to S3 (local s3rver)', destination.id, await cpNow());
    // The server's own ceiling: the same bytes PUT by a bare client, no Cairn process involved.
    await settle(dir);
    process.stdout.write(`s3rver alone: ${await s3Alone(s3.endpoint, s3.bucket, files, fileMiB * MiB)}\n`);

    // A restore from it: the Agent downloads every file with presigned GETs (after a PRE_RESTORE backup that stores nothing new).
    const started = now();
    const { result: restored, rss } = await peakRss({ Controller: controller.pid!, Agent: agent.pid! }, async () => {
      await call<ServerDetail>('POST', `/backups/${toS3.id}/restore`, {});
      return poll('the restore from S3', async () => {
        const s = await call<ServerDetail>('GET', `/servers/${server.id}`);
        return s.phase === 'READY' ? s : undefined;
      }, 30 * 60_000, 100);
    });
    const seconds = (now() - started) / 1000;
    const failure = restored.conditions.find((c) => c.reason === 'RESTORE_FAILED');
    if (failure) throw new Error(`the restore from S3 failed: ${failure.message}`);
    process.stdout.write(`restore from S3 (local s3rver): ${(toS3.sizeBytes / 1e6 / seconds).toFixed(1)} MB/s (${toS3.sizeBytes / MiB} MiB in ${seconds.toFixed(1)} s, its PRE_RESTORE backup included); ${rssText(rss)}\n`);
  } finally {
    // SIGTERM, not SIGKILL: a stopping Agent writes its CPU profile (BENCH_CPU_PROF).
    if (agent && agent.exitCode === null && agent.signalCode === null) {
      agent.kill('SIGTERM');
      await once(agent, 'exit');
    }
    await s3?.dispose();
    controller.kill('SIGTERM');
    await once(controller, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
