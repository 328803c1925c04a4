import { expect } from 'chai';
import type { Backup, ConsoleStreamEvent, ServerDetail } from '../support/api-types.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';
import { removeGameCgroups } from '../support/game-cgroups.js';
import { javaGameJar, javaGameRelease } from '../support/java-game.js';
import type { SseStream } from '../support/sse.js';
import { waitFor } from '../support/wait-for.js';
import { openConsole } from '../support/game-console.js';

const MiB = 2 ** 20;
const paper = { template: 'paper', version: '1.20.6' };
const vanilla = { template: 'vanilla', version: '1.20.6' };
const velocity = { template: 'velocity', version: '3.3.0-SNAPSHOT' };

const lineText = (e: ConsoleStreamEvent) => (e.event === 'line' ? e.data.text : '');
const conditionsOf = (s: ServerDetail) => s.conditions.map((c) => `${c.reason}: ${c.message}`).join('\n');

// The box needs root (CI and these machines run as root); elsewhere there is nothing to test here.
const asRoot = process.getuid?.() === 0;

/**
 * The real templates (paper, vanilla, velocity) on a boxed Agent, with a small real Java game
 * (test/fixtures/java-game) as the jar the (fake) upstreams serve: `{java} ... -jar
 * {cairnDir}/server.jar` is run for real by the game's own uid in its bubblewrap view and cgroups.
 */
(asRoot ? describe : describe.skip)('real Java servers in the box: paper, vanilla and velocity from their upstreams', function () {
  this.timeout(300_000);
  let upstream: FakeUpstream;
  let f: Fleet;
  const streams: SseStream<ConsoleStreamEvent>[] = [];

  /** A game server, or the network's proxy for a PROXY template (on a port of this Agent's own range). */
  async function create(name: string, software: object, cpuMillis: number, proxy = false): Promise<ServerDetail> {
    const resources = { cpuMillis, memoryBytes: 512 * MiB };
    if (proxy) expect((await f.admin.patch('/network', { port: f.gamePorts.last })).status).to.equal(200);
    const res = proxy
      ? await f.admin.post<ServerDetail>('/network/proxy', { name, software, resources, teamId: f.teamId })
      : await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software, resources, restartPolicy: { maxRestarts: 1, windowSeconds: 300 } });
    expect(res.status, res.text).to.equal(201);
    return waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', `${name} READY`, 60_000);
  }

  /** A console stream from now on, closed after the tests. */
  async function consoleOf(id: string): Promise<SseStream<ConsoleStreamEvent>> {
    const stream = await openConsole(f, id);
    streams.push(stream);
    return stream;
  }

  /** RUNNING, or fails with what the server says instead (a crash loop's last lines). */
  async function running(id: string, what: string): Promise<ServerDetail> {
    const s = await waitForServer(f.admin, id, (d) => (d.status.runtimeState === 'RUNNING' && d.convergence === 'CONVERGED' && d.status.pid !== undefined)
      || d.conditions.some((c) => c.reason === 'CRASH_LOOP' || c.reason === 'UPDATE_FAILED'), what, 90_000);
    if (s.status.runtimeState !== 'RUNNING' || s.conditions.some((c) => c.reason === 'CRASH_LOOP' || c.reason === 'UPDATE_FAILED')) {
      expect.fail(`${what}: not running.\n${conditionsOf(s)}\nlast crash: ${JSON.stringify(s.status.lastCrash)}`);
    }
    return s;
  }

  /** Started and RUNNING, listening on its game port (read from its managed config). */
  async function start(id: string): Promise<ServerDetail> {
    expect((await f.admin.post(`/servers/${id}/start`)).status).to.equal(202);
    const s = await running(id, 'RUNNING after the start');
    expect(s.gamePort).to.be.within(f.gamePorts.first, f.gamePorts.last);
    expect(await tcpAccepts(s.gamePort!), `port ${s.gamePort} open`).to.equal(true);
    return s;
  }

  /** Types a command and waits for the console line it answers with. */
  async function ask(id: string, command: string, answer: RegExp): Promise<string> {
    const stream = await consoleOf(id);
    const sent = await f.admin.post(`/servers/${id}/console/commands`, { command });
    expect(sent.status, sent.text).to.equal(200);
    const line = await stream.next((e) => answer.test(lineText(e)), 20_000);
    stream.close();
    return lineText(line);
  }

  /** What the JVM of the game says Runtime.availableProcessors() is. */
  const processors = async (id: string) => Number(/availableProcessors=(\d+)/.exec(await ask(id, 'cpus', /availableProcessors=\d+/))![1]);

  /** Stops through the template's stop command: the game says so and exits by itself, no crash. */
  async function stop(id: string, goodbye: RegExp): Promise<void> {
    const stream = await consoleOf(id);
    expect((await f.admin.post(`/servers/${id}/stop`)).status).to.equal(202);
    await stream.next((e) => goodbye.test(lineText(e)), 60_000);
    stream.close();
    const stopped = await waitForServer(f.admin, id, (s) => s.status.runtimeState === 'STOPPED' && s.convergence === 'CONVERGED', 'STOPPED', 60_000);
    expect(stopped.status.lastCrash, JSON.stringify(stopped.status.lastCrash)).to.equal(undefined);
    expect(stopped.status.pid).to.equal(undefined);
  }

  before(async () => {
    upstream = await FakeUpstream.start();
    // Fill lists builds newest first; each version asks for the Java the game's classes target.
    upstream.paper.set('paper', [{
      id: paper.version, java: javaGameRelease, builds: [
        { id: 101, channel: 'STABLE', bytes: await javaGameJar('paper-1.20.6-101') },
        { id: 100, channel: 'STABLE', bytes: await javaGameJar('paper-1.20.6-100') },
      ],
    }]);
    upstream.paper.set('velocity', [{ id: velocity.version, java: javaGameRelease, builds: [{ id: 400, channel: 'STABLE', bytes: await javaGameJar('velocity-3.3.0-400') }] }]);
    upstream.mojang = [{ id: vanilla.version, type: 'release', java: javaGameRelease, bytes: await javaGameJar('vanilla-1.20.6') }];
    f = await startFleet({ agentArgs: ['--isolation', 'auto'], extraArgs: upstream.controllerArgs });
    // The sync at start runs in the background; until it lands the shipped snapshot is in use.
    expect((await f.admin.post('/software/sync')).status).to.equal(200);
  });
  after(async () => {
    for (const s of streams) s.close();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    if (f) {
      const servers = (await f.admin.get<{ items: { id: string }[] }>('/servers?limit=200')).body.items.map((s) => s.id);
      await f.dispose();
      await removeGameCgroups(servers);
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await upstream?.close();
  });

  it('paper (500m): runs build 100, answers on its console, sees 1 processor, backs up quiesced, updates to build 101, stops', async () => {
    const created = await create('paper', { ...paper, build: '100' }, 500);
    expect(created.software).to.deep.equal({ ...paper, build: '100' });
    const { id } = await start(created.id);
    expect(await ask(id, 'version', /running java-game build/)).to.match(/build paper-1\.20\.6-100$/);
    expect(await ask(id, 'say hello from the test', /\[Server\] /)).to.match(/\[Server\] hello from the test$/);
    // The JVM sizes itself to the reservation, not to the host: ceil(500/1000) = 1.
    expect(await processors(id)).to.equal(1);

    const console = await consoleOf(id);
    const res = await f.admin.post<Backup>(`/servers/${id}/backups`, {});
    expect(res.status, res.text).to.equal(202);
    const backup = await waitFor(async () => {
      const b = (await f.admin.get<Backup>(`/backups/${res.body.id}`)).body;
      return b.state === 'SUCCEEDED' || b.state === 'FAILED' ? b : undefined;
    }, { timeoutMs: 60_000, what: 'the backup to finish' });
    expect(backup.state, backup.error).to.equal('SUCCEEDED');
    expect(backup.fileCount).to.be.at.least(2);
    // Quiesced: saving turned off, the world flushed before the copy, saving on again after it.
    await console.next((e) => /Automatic saving is now enabled/.test(lineText(e)), 20_000);
    const lines = console.events.map(lineText);
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    expect(at(/Automatic saving is now disabled/), lines.join('\n')).to.be.at.least(0);
    expect(at(/Saved the game/)).to.be.greaterThan(at(/Automatic saving is now disabled/));
    expect(at(/Automatic saving is now enabled/)).to.be.greaterThan(at(/Saved the game/));
    console.close();

    const update = await f.admin.post<ServerDetail>(`/servers/${id}/software`, { version: paper.version, build: '101' });
    expect(update.status, update.text).to.equal(202);
    const ended = await waitForServer(f.admin, id, (s) => s.phase !== 'UPDATING', 'the update to end', 120_000);
    expect(ended.phase, conditionsOf(ended)).to.equal('READY');
    expect(ended.conditions.find((c) => c.reason === 'UPDATE_FAILED')?.message).to.equal(undefined);
    expect(ended.software).to.deep.equal({ ...paper, build: '101' });
    await running(id, 'RUNNING on build 101');
    expect(await ask(id, 'version', /running java-game build/)).to.match(/build paper-1\.20\.6-101$/);

    await stop(id, /Stopping the server/);
  });

  it('vanilla (2500m): runs, answers on its console, sees 3 processors, stops', async () => {
    const { id } = await start((await create('vanilla', vanilla, 2500)).id);
    expect(await ask(id, 'version', /running java-game build/)).to.match(/build vanilla-1\.20\.6$/);
    expect(await ask(id, 'say hello vanilla', /\[Server\] /)).to.match(/\[Server\] hello vanilla$/);
    // ceil(2500/1000) = 3: more than this machine's 2 cores, so only the flag can give it.
    expect(await processors(id)).to.equal(3);
    await stop(id, /Stopping the server/);
  });

  it('velocity (1500m): reads its bind from velocity.toml, runs, answers on its console, sees 2 processors, stops on `end`', async () => {
    const created = await create('proxy', velocity, 1500, true);
    expect(created.software).to.deep.equal({ ...velocity, build: '400' });
    const { id } = await start(created.id);
    expect(await ask(id, 'version', /running java-game build/)).to.match(/build velocity-3\.3\.0-400$/);
    expect(await ask(id, 'say hello proxy', /\[Server\] /)).to.match(/\[Server\] hello proxy$/);
    expect(await processors(id)).to.equal(2);
    const bound = await ask(id, 'whoami', /\[Debug\] user=/);
    expect(bound).to.not.match(/user=root /);
    await stop(id, /Shutting down the proxy/);
  });
});
