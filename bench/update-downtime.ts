/**
 * Update downtime benchmark: how long a running simcraft server's game port refuses connections
 * while `POST /servers/{id}/software` moves it to a newer version. A real Controller (in this
 * process, embedded store) and a real Agent process (from source), as test/support/fleet.ts
 * starts them for the integration tests, with CAIRN_ISOLATION=off as tests run.
 *
 * simcraft refuses a world saved by a newer version, so updates only go upward, and its versions
 * (templates/simcraft.json) give two upward steps: 1.20.6 → 1.21.1 → 1.21.4. Each sample server
 * is created at 1.20.6 and started (so its world is written), then updated twice;
 * BENCH_UPDATE_SERVERS (5) servers, one after another, give 10 samples. Each is stopped once
 * measured, so the servers measured later do not share the machine with the earlier ones.
 *
 * Per update, from before the request: a TCP connect to 127.0.0.1:gamePort every 10 ms, and
 * `GET /servers/{id}` every 50 ms. The downtime runs from the first refused connect to the first
 * accepted one after it (a port that closed and opened more than once counts from the first close
 * to the last open); the update is done once the server is READY, RUNNING and CONVERGED on the new
 * version and the port accepts again. The workflow's duration is from sending the request (answered
 * 202) to the first detail that is READY on the new version.
 * Run with `npm run bench update-downtime` or `npx tsx bench/update-downtime.ts`.
 */
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../test/support/fleet.js';
import type { ServerDetail } from '../test/support/api-types.js';

process.env.CAIRN_ISOLATION ??= 'off';

const servers = Number(process.env.BENCH_UPDATE_SERVERS ?? 5);
const first = '1.20.6';
const steps = ['1.21.1', '1.21.4'];
const small = { cpuMillis: 500, memoryBytes: GiB };
const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRunning = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

interface Sample {
  from: string;
  to: string;
  downtimeMs: number;
  closures: number;
  readyMs: number;
  acceptsMs: number;
  stepsSeen: string;
}

async function update(f: Fleet, id: string, from: string, to: string): Promise<Sample> {
  const before = (await f.admin.get<ServerDetail>(`/servers/${id}`)).body;
  let port = before.gamePort!;
  if (!(await tcpAccepts(port))) throw new Error(`the game port ${port} does not accept before the update`);
  let closedAt: number | undefined;
  let openedAt: number | undefined;
  let closures = 0;
  let open = true;
  const polling = { on: true };
  // The connect poller runs until the workflow is over and the port accepts again.
  const poller = (async () => {
    while (polling.on) {
      const accepts = await tcpAccepts(port);
      const at = now();
      if (open && !accepts) {
        closures++;
        closedAt ??= at;
      }
      if (!open && accepts) openedAt = at;
      open = accepts;
      await sleep(10);
    }
  })();
  const started = now();
  const res = await f.admin.post<ServerDetail>(`/servers/${id}/software`, { version: to });
  if (res.status !== 202) throw new Error(`update to ${to}: ${res.status} ${res.text}`);
  const seen: string[] = [];
  let readyMs: number | undefined;
  const end = await waitForServer(f.admin, id, (s) => {
    if (s.workflow && seen.at(-1) !== s.workflow.step) seen.push(s.workflow.step);
    if (s.gamePort) port = s.gamePort;
    if (s.phase === 'READY' && s.software.version === to) readyMs ??= now() - started;
    if (s.phase === 'READY' && s.software.version !== to) throw new Error(`the update to ${to} ended on ${s.software.version}: ${JSON.stringify(s.conditions)}`);
    return isRunning(s) && s.software.version === to && open && closedAt !== undefined;
  }, `RUNNING on ${to} with the port open`, 120_000);
  polling.on = false;
  await poller;
  if (closedAt === undefined || openedAt === undefined) throw new Error(`the game port never closed during the update to ${to}`);
  if (end.gamePort !== before.gamePort) process.stdout.write(`  (the game port moved: ${before.gamePort} → ${end.gamePort})\n`);
  return { from, to, downtimeMs: openedAt - closedAt, closures, readyMs: readyMs!, acceptsMs: openedAt - started, stepsSeen: seen.join(' → ') };
}

async function main(): Promise<void> {
  const f = await startFleet();
  const samples: Sample[] = [];
  try {
    for (let n = 1; n <= servers; n++) {
      const created = await f.admin.post<ServerDetail>('/servers', { name: `update-${n}`, teamId: f.teamId, software: { template: 'simcraft', version: first }, resources: small });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
      const id = created.body.id;
      await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY', 60_000);
      await f.admin.post(`/servers/${id}/start`);
      await waitForServer(f.admin, id, isRunning, `RUNNING on ${first}`, 60_000);
      let from = first;
      for (const to of steps) {
        const s = await update(f, id, from, to);
        samples.push(s);
        process.stdout.write(
          `server ${n} ${s.from} → ${s.to}: port closed ${s.downtimeMs.toFixed(0)} ms${s.closures > 1 ? ` (closed ${s.closures} times)` : ''}; ` +
          `202 → READY ${s.readyMs.toFixed(0)} ms, 202 → port accepts ${s.acceptsMs.toFixed(0)} ms; steps seen (50 ms polls) ${s.stepsSeen}\n`,
        );
        from = to;
      }
      await f.admin.post(`/servers/${id}/stop`);
      await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED', 60_000);
    }
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    const ms = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
    process.stdout.write(`${samples.length} updates: game port closed ${ms(samples.map((s) => s.downtimeMs))}\n`);
    process.stdout.write(`workflow 202 → READY on the new version: ${ms(samples.map((s) => s.readyMs))}\n`);
    process.stdout.write(`202 → the port accepts again: ${ms(samples.map((s) => s.acceptsMs))}\n`);
  } finally {
    await f.dispose();
  }
}

await main();
