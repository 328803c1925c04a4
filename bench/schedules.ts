/**
 * Schedule lag: BENCH_SCHEDULES (1,000) schedules on one minute (`* * * * *`, one `command` task
 * each, spread over BENCH_SCHEDULE_SERVERS (10) servers of a fake Node), on the embedded store. The
 * Controller runs from source in its own process with the process's timers; the fake Node runs here
 * and notes when each command arrives. For the first whole minute after every schedule exists:
 * lag p50/p99/max from the minute to each run's `startedAt` (its claim in the store), and to its
 * command's arrival on the Node (the task done). Run with `npm run bench schedules`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FakeAgent } from '../test/support/fake-agent.js';
import type { Node, Schedule, ScheduleRunPage, ServerDetail, Team } from '../test/support/api-types.js';
import { adminClient } from './support/admin-session.js';

const scheduleCount = Number(process.env.BENCH_SCHEDULES ?? 1000);
const serverCount = Number(process.env.BENCH_SCHEDULE_SERVERS ?? 10);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(name: string, lags: number[]): void {
  const sorted = [...lags].sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} n=${sorted.length}  p50 ${percentile(sorted, 50)} ms  p99 ${percentile(sorted, 99)} ms  max ${sorted.at(-1)} ms`);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-bench-schedules-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/controller/main.ts', '--data-dir', dataDir, '--http-port', '0', '--grpc-port', '0'], {
    env: { ...process.env, MONGODB_URI: '', CAIRN_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let agent: FakeAgent | undefined;
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const { httpPort, grpcPort } = JSON.parse(line) as { httpPort: number; grpcPort: number };
    const { admin } = await adminClient(httpPort, dataDir);
    const teamId = (await admin.post<Team>('/teams', { name: 'bench' })).body.id;
    agent = await FakeAgent.connect(admin, grpcPort, 'bench-node');
    const arrived = new Map<string, number>();
    agent.client.handle('consoleCommand', async ({ command }) => {
      arrived.set(command, Date.now());
      return {};
    });
    while ((await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState !== 'HEALTHY') await sleep(20);
    const servers: string[] = [];
    for (let i = 0; i < serverCount; i++) {
      const res = await admin.post<ServerDetail>('/servers', { name: `s${i}`, teamId, nodeId: agent.nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 20 } });
      servers.push(res.body.id);
    }
    for (const id of servers) while ((await admin.get<ServerDetail>(`/servers/${id}`)).body.phase !== 'READY') await sleep(20);
    const schedules: string[] = [];
    for (let i = 0; i < scheduleCount; i++) {
      const res = await admin.post<Schedule>(`/servers/${servers[i % serverCount]}/schedules`, { name: `s${i}`, cron: '* * * * *', tasks: [{ action: 'command', command: `say ${i}` }] });
      if (res.status !== 201) throw new Error(`schedule ${i}: ${res.status} ${res.text}`);
      schedules.push(res.body.id);
    }
    const minute = Math.ceil((Date.now() + 1) / 60_000) * 60_000;
    console.log(`${scheduleCount} schedules on ${serverCount} servers; waiting ${Math.round((minute - Date.now()) / 1000)} s for ${new Date(minute).toISOString()}`);
    arrived.clear();
    await sleep(minute - Date.now() + 10_000);
    const started: number[] = [];
    const results = new Map<string, number>();
    for (const id of schedules) {
      const run = (await admin.get<ScheduleRunPage>(`/schedules/${id}/runs?limit=5`)).body.items.find((r) => Date.parse(r.scheduledFor) === minute);
      if (!run) continue;
      results.set(run.result, (results.get(run.result) ?? 0) + 1);
      if (run.startedAt) started.push(Date.parse(run.startedAt) - minute);
    }
    const commands = [...arrived.values()].map((at) => at - minute);
    console.log(`runs of that minute by result: ${[...results].map(([r, n]) => `${r} ${n}`).join(', ')} (of ${scheduleCount})`);
    summary('minute → run startedAt (claimed)', started);
    summary('minute → command on the Node', commands);
  } finally {
    agent?.stop();
    child.kill();
    await once(child, 'exit').catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
