import { expect } from 'chai';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDetail, Team } from '../support/api-types.js';
import { FaultCluster, type ControllerSlot } from '../support/fault-cluster.js';
import { TcpProxy, type CutMode } from '../support/tcp-proxy.js';
import { testMongo } from '../support/test-mongodb.js';
import { waitFor } from '../support/wait-for.js';

/** Short leases keep the test quick: renewed every 1 s, a renewal later than that loses them all. */
const leaseTtlSeconds = 3;
const leaseTtlMs = leaseTtlSeconds * 1000;
const outageMs = 20_000;
/**
 * A write through the API first reads the caller's session; the driver gives up finding the store
 * after 5 s (`serverSelectionTimeoutMS`, mongo-client-options.ts) and the answer is 503 then, or
 * after twice that when a read or write it retries met the cut first (one took 7.9 s). 1 s more for
 * a loaded machine: about half the 20 s outage, so a request that waits for the store's return fails.
 */
const writeAnsweredWithinMs = 11_000;
/**
 * After the store is back: the driver finds it again at its next operation (≤ 1 s, the next lease
 * round), every Controller claims its share at that round or the next (1 s each), a Controller above
 * its share hands one Node back per round; then each Agent dials again after its backoff, which grew
 * during the 20 s of refusals (attempt 5 or 6 of 0.5 s doubling: at most 16–30 s, the ceiling
 * being 30 s). So the Agents' backoff ceiling plus a few rounds.
 */
const resumeWithinMs = 30_000 + 3 * (leaseTtlMs / 3) + 5_000;

/** Once a Controller's /readyz is 200 again: a request in flight while its driver reconnected may have failed, one retried after it must not. */
const writesBackWithinMs = 10_000;

type LogLine = Record<string, unknown> & { time?: number; event?: string };

const heldOf = async (cluster: FaultCluster, slot: ControllerSlot): Promise<number | undefined> => {
  const res = await cluster.apiOf(slot).get('/metrics');
  const held = /^cairn_leases_held (\d+)$/m.exec(res.text)?.[1];
  return res.status === 200 && held !== undefined ? Number(held) : undefined;
};

/** CPU seconds (user + system) a process has used so far, from /proc (Linux): load on the machine does not change it. */
const cpuSecondsOf = async (pid: number): Promise<number> => {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  // utime and stime, the 14th and 15th fields of the line (12th and 13th after the command), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** The lines each process logged at or after `since` (ms since the epoch, as pino's `time`). */
const linesSince = (logs: LogLine[][], since: number): LogLine[][] => logs.map((lines) => lines.filter((l) => typeof l.time === 'number' && l.time >= since));

/**
 * Issue 47: the store unreachable for 20 s. Three Controller processes on one FerretDB (or
 * MONGODB_URI) database reach it through a TCP proxy this test cuts for all of them at once; two
 * real Agents each run a simcraft game. Cut once refusing connections and once as a silent
 * blackhole, where the driver learns only from its timeouts. During the cut every Controller drops
 * its leases within the lease's time to live and drives no Node, writes answer 503 `not_ready` in
 * bounded time, and what needs no store (/healthz, /metrics, /readyz saying so) is served. After
 * it, every Node is driven by exactly one Controller again and writes succeed, with the same
 * Controller processes and the same games. (One Controller's outage: mongo-resilience.)
 */
const mongo = testMongo;
if (!mongo) console.log('Store outage under three Controllers: not run (no MongoDB or FerretDB for the tests)');
else {
  describe(`The store cut for 20 s under three Controllers (${mongo.kind})`, function () {
    this.timeout(240_000);
    let proxy: TcpProxy | undefined;
    let cluster: FaultCluster | undefined;
    let throughProxy = '';

    before(async function () {
      const target = /^mongodb:\/\/(?:[^@/]*@)?(127\.0\.0\.1|localhost):(\d+)/.exec(await mongo.uri());
      // The proxy relays to a local port; a remote server cannot be cut from here.
      if (!target) this.skip();
      proxy = await TcpProxy.start(Number(target[2]));
      throughProxy = `127.0.0.1:${proxy.port}`;
      const hostPort = `${target[1]}:${target[2]}`;
      cluster = await FaultCluster.start(mongo, {
        controllers: 3, agents: 2, leaseTtlSeconds,
        // directConnection: the server's own address (in its hello) would lead the driver around the proxy.
        storeUri: (uri) => uri.replace(hostPort, throughProxy) + (uri.includes('?') ? '&' : '?') + 'directConnection=true',
      });
    });

    after(async () => {
      await cluster?.close();
      await proxy?.close();
    });

    for (const mode of ['refuse', 'blackhole'] as const satisfies CutMode[]) {
      // The black-holed cut is opt-in (CAIRN_FAULT_TESTS=1) until it is green: in about one run of four one Controller stays
      // unready for over a minute after the store is back, its driver's operations all failing with the error of the cut's first
      // closed connection (the server left Unknown: the monitor stuck; docs/known-limits.md). The refusing cut always runs.
      const run = mode === 'refuse' || process.env.CAIRN_FAULT_TESTS === '1' ? it : it.skip;
      run(`${mode}: leases dropped within the ttl, writes 503 in bounded time, then driven again without a restart`, async () => {
        try {
          await outage(cluster!, proxy!, mode);
        } catch (e) {
          // Where things stood, for a run that failed on CI: every process's log.
          const dir = await mkdtemp(join(tmpdir(), `cairn-outage-${mode}-`));
          for (const [i, slot] of cluster!.slots.entries()) await writeFile(join(dir, `controller-${i}.log`), slot.process.stderr);
          for (const [i, host] of cluster!.hosts.entries()) await writeFile(join(dir, `agent-${i}.log`), host.agent.stderr);
          console.log(`      the logs of the failed run: ${dir}`);
          throw e;
        } finally {
          // A failed check must not leave the next cut's cluster without its store.
          proxy!.restore();
        }
      });
    }
  });
}

async function outage(cluster: FaultCluster, proxy: TcpProxy, mode: CutMode): Promise<void> {
  await waitFor(() => cluster.allDriven(), { timeoutMs: 60_000, intervalMs: 250, what: 'every Node driven before the cut' });
  const pids = cluster.slots.map((s) => s.process.child.pid);
  const gamePids = await Promise.all(cluster.hosts.map((h) => cluster.gamePidOf(h)));
  const serverId = cluster.hosts[0].serverId;

  const cpuBefore = await Promise.all(pids.map((pid) => cpuSecondsOf(pid!)));
  const cutAt = Date.now();
  proxy.cut(mode);
  const endsAt = cutAt + outageMs;

  // Each Controller's leases lost (its log), timed from the cut; then each Agent's stream is closed (its log).
  const lostAt = await waitFor(() => {
    const times = cluster.controllerLogs().map((lines) => lines.find((l: LogLine) => l.event === 'leases_lost' && l.time! >= cutAt)?.time as number | undefined);
    return times.every((t) => t !== undefined) && times;
  }, { timeoutMs: leaseTtlMs + 2_000, intervalMs: 50, what: 'every Controller logging its leases lost' });
  for (const [i, at] of lostAt.entries()) expect(at - cutAt, `controller ${i} dropped its leases within the ttl`).to.be.below(leaseTtlMs);
  // From here on no Controller may drive a Node until the store is back.
  const allDroppedAt = Math.max(...lostAt);
  const agentsCutAt = await waitFor(() => {
    const times = cluster.agentLogs().map((lines) => lines.find((l: LogLine) => l.event === 'reconnecting' && l.time! >= cutAt)?.time as number | undefined);
    return times.every((t) => t !== undefined) && times;
  }, { timeoutMs: leaseTtlMs + 2_000, intervalMs: 50, what: 'every Agent\'s stream closed' });
  for (const [i, at] of agentsCutAt.entries()) expect(at - cutAt, `agent ${i} cut off within the ttl`).to.be.below(leaseTtlMs);

  // /metrics waits for the server records (cairn_servers) up to its 5 s census deadline, then answers without them.
  const scrapes = await Promise.all(cluster.slots.map(async (slot) => {
    const started = Date.now();
    return { held: await heldOf(cluster, slot), ms: Date.now() - started };
  }));
  for (const scrape of scrapes) expect(scrape, 'the Node leases held, scraped during the cut').to.include({ held: 0 });

  const ready = await Promise.all(cluster.slots.map(async (slot) => {
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${slot.process.httpPort}/readyz`);
    return { status: res.status, ms: Date.now() - started, body: (await res.json()) as { store: { ok: boolean } } };
  }));
  for (const r of ready) {
    expect(r.status, '/readyz during the cut').to.equal(503);
    expect(r.body.store.ok).to.equal(false);
    expect(r.ms, '/readyz answers within its 1 s ping deadline, and slack').to.be.below(1_500);
  }
  for (const slot of cluster.slots) expect((await cluster.apiOf(slot).get('/healthz')).status, '/healthz during the cut').to.equal(200);

  const writes = await Promise.all(cluster.slots.flatMap((slot) => [
    () => cluster.apiOf(slot).patch(`/servers/${serverId}`, { sleep: { afterEmptySeconds: 7200 + slot.index, wakeOnJoin: true } }),
    () => cluster.apiOf(slot).post('/teams', { name: `outage-${mode}-${slot.index}` }),
  ].map(async (write) => {
    const started = Date.now();
    const res = await write();
    return { ms: Date.now() - started, status: res.status, code: (res.body as { code?: string }).code, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after') };
  })));
  for (const w of writes) {
    expect({ status: w.status, code: w.code }, 'a write during the cut').to.deep.equal({ status: 503, code: 'not_ready' });
    expect(w.type).to.match(/^application\/problem\+json/);
    expect(w.retryAfter).to.equal('5');
    expect(w.ms, `a write answered in bounded time: ${JSON.stringify(writes)}`).to.be.below(writeAnsweredWithinMs);
  }

  // The outage itself lasts 20 s: there is no condition to poll for, only time to let pass.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, endsAt - Date.now())));
  for (const slot of cluster.slots) expect(await heldOf(cluster, slot), `controller ${slot.index} at the end of the cut`).to.equal(0);
  const cpuDuring = (await Promise.all(pids.map((pid) => cpuSecondsOf(pid!)))).map((cpu, i) => (cpu - cpuBefore[i]).toFixed(2));
  const restoredAt = Date.now();
  proxy.restore();

  const readyAgain = await Promise.all(cluster.slots.map(async (slot) => {
    await waitFor(async () => (await fetch(`http://127.0.0.1:${slot.process.httpPort}/readyz`)).status === 200, { timeoutMs: resumeWithinMs, intervalMs: 100, what: `controller ${slot.index} ready again` });
    return Date.now() - restoredAt;
  }));
  // A Controller that found the store first may claim every Node and hand the surplus back a round later: settled is when
  // every Node is driven and the Node leases held add up to the Nodes.
  await waitFor(async () => {
    const held = await Promise.all(cluster.slots.map((slot) => heldOf(cluster, slot)));
    return held.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) === cluster.hosts.length && await cluster.allDriven();
  }, { timeoutMs: resumeWithinMs, intervalMs: 250, what: 'every Node driven again after the cut, by one Controller each' });
  const resumedMs = Date.now() - restoredAt;
  // A write racing the driver's reconnection may still be told 503 not_ready (and should retry, as it says); nothing else.
  const refusedAfter: string[] = [];
  for (const slot of cluster.slots) {
    let attempt = 0;
    await waitFor(async () => {
      const team = await cluster.apiOf(slot).post<Team>('/teams', { name: `after-${mode}-${slot.index}-${attempt++}` });
      if (team.status !== 201) refusedAfter.push(`${team.status} ${(team.body as { code?: string }).code}`);
      return team.status === 201;
    }, { timeoutMs: writesBackWithinMs, intervalMs: 250, what: `a write through controller ${slot.index} after the cut` });
  }
  expect(refusedAfter.filter((r) => r !== '503 not_ready'), 'writes after the cut').to.deep.equal([]);
  const patched = await cluster.apiOf(cluster.slots[0]).patch<ServerDetail>(`/servers/${serverId}`, { sleep: { afterEmptySeconds: 3600, wakeOnJoin: true } });
  expect(patched.status, patched.text).to.equal(200);

  expect(cluster.slots.map((s) => s.process.child.pid), 'the same Controller processes').to.deep.equal(pids);
  expect(cluster.slots.every((s) => s.process.child.exitCode === null)).to.equal(true);
  expect(await Promise.all(cluster.hosts.map((h) => cluster.gamePidOf(h))), 'the same games').to.deep.equal(gamePids);

  const controllerLogs = linesSince(cluster.controllerLogs(), cutAt);
  // Each term of a Node is gained by one Controller only (a Node handed over is gained again under a newer term).
  const gained = controllerLogs.flatMap((lines, i) => lines.filter((l) => l.event === 'lease_gained').map((l) => ({ term: `${String(l.nodeId)}@${String(l.term)}`, by: i })));
  const twice = gained.filter((g) => gained.some((o) => o.term === g.term && o.by !== g.by));
  // On FerretDB too: every lease write claims the version it replaces (it once happened there in two runs of eight).
  expect(twice, 'a term of a Node gained by two Controllers').to.deep.equal([]);
  const duringCut = (l: LogLine) => l.time! >= allDroppedAt && l.time! < restoredAt;
  const acted = controllerLogs.flat().filter((l) => duringCut(l) && (l.event === 'lease_gained' || l.event === 'agent_connected'));
  expect(acted, 'no Controller took a Node or an Agent while the store was cut').to.deep.equal([]);
  const obeyed = linesSince(cluster.agentLogs(), allDroppedAt).flat().filter((l) => duringCut(l) && (l.event === 'connected' || l.event === 'lease_term_raised'));
  expect(obeyed, 'no Agent linked to a Controller while the store was cut').to.deep.equal([]);

  const writeMs = writes.map((w) => w.ms).sort((a, b) => a - b);
  console.log(`      ${mode}: leases lost ${lostAt.map((t) => t - cutAt).join('/')} ms after the cut, Agents cut off after ${agentsCutAt.map((t) => t - cutAt).join('/')} ms; `
    + `/metrics in ${scrapes.map((x) => x.ms).join('/')} ms; 503 in ${writeMs[0]}–${writeMs[writeMs.length - 1]} ms; every Controller ready again after ${readyAgain.join('/')} ms, every Node driven again ${resumedMs} ms after the store came back (${refusedAfter.length} writes refused meanwhile); `
    + `Controller CPU during the cut ${cpuDuring.join('/')} s`);
}
