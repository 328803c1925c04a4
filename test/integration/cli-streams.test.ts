import { expect } from 'chai';
import { join } from 'node:path';
import type { CommandSent, ConsoleStreamEvent, CreatedApiToken, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { RunningProgram, runBuilt } from '../support/run-program.js';
import { openSse } from '../support/sse.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const row = (state: string) => new RegExp(`^lobby\\s+Ops\\s+node-1\\s+${state}\\s+READY\\s+${state}\\s+CONVERGED`, 'm');
/** How many rows of the watch's output show lobby converged in `state`. */
const rows = (stdout: string, state: string) => (stdout.match(new RegExp(row(state).source, 'gm')) ?? []).length;

/**
 * The built `cairn` (`npm run build` first) on the console and watch streams, against a real
 * Controller and Agent running simcraft; the watch reaches the Controller through a proxy the
 * test cuts, as a dropped network would.
 */
describe('cairn CLI streams: logs ends at the end of the replay, get --watch resumes after a drop', function () {
  this.timeout(120_000);
  let f: Fleet;
  let token: string;
  let serverId: string;
  const running: RunningProgram[] = [];
  const proxies: TcpProxy[] = [];
  const env = (url: string) => ({ CAIRN_URL: url, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: join(f.agentDir, 'no-credentials.json') });
  const cairn = (args: string[]) => runBuilt('cli', args, { env: env(f.t.baseUrl) });
  const watchThrough = async (args: string[] = []) => {
    const proxy = await TcpProxy.start(Number(new URL(f.t.baseUrl).port));
    proxies.push(proxy);
    const watch = new RunningProgram('cli', ['get', 'servers', '--watch', ...args], env(proxy.url));
    running.push(watch);
    return { proxy, watch };
  };
  const serverIs = (runtimeState: string) =>
    waitForServer(f.admin, serverId, (s) => s.status.runtimeState === runtimeState && s.convergence === 'CONVERGED', runtimeState, 60_000);

  before(async () => {
    f = await startFleet();
    token = (await f.admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-streams' })).body.token;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: f.teamId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 512 * 2 ** 20 }, nodeId: f.nodeId });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'READY', 60_000);
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await serverIs('RUNNING');
    for (const word of ['one', 'two', 'three', 'four', 'five', 'six']) {
      expect((await f.admin.post<CommandSent>(`/servers/${serverId}/console/commands`, { command: `say ${word}` })).status).to.equal(200);
    }
  });
  after(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await Promise.all(proxies.map((p) => p.close()));
    await f.dispose();
  });

  it('the console stream marks the end of its replay with `replayed`, before any live line', async () => {
    const stream = await openSse<ConsoleStreamEvent>(`${f.t.baseUrl}/api/v1/servers/${serverId}/console?tail=5`, { cookie: f.admin.auth.cookie! });
    try {
      const replayed = await stream.next((e) => e.event === 'replayed');
      const before = stream.events.slice(0, stream.events.indexOf(replayed));
      expect(before.map((e) => e.event === 'line' && e.data.replay)).to.deep.equal([true, true, true, true, true]);
      expect(replayed.data).to.deep.equal({ lines: 5 });
      expect(stream.events.filter((e) => e.event === 'replayed')).to.have.length(1);
    } finally {
      stream.close();
    }
  });

  it('logs NAME --tail 5 prints the last five lines and ends as soon as the replay is over; --tail 0 prints nothing', async () => {
    const started = Date.now();
    const res = await cairn(['logs', 'lobby', '--tail', '5']);
    const tookMs = Date.now() - started;
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.split('\n').slice(0, -1);
    expect(lines).to.have.length(5);
    expect(lines.at(-1)).to.match(/\[Server\] six$/);
    // A process start is most of this; the stream itself ends at `replayed`, with no quiet timer to wait out.
    expect(tookMs).to.be.below(10_000);
    const empty = await cairn(['logs', 'lobby', '--tail', '0']);
    expect(empty.code, empty.stderr).to.equal(0);
    expect(empty.stdout).to.equal('');
  });

  it('get servers --watch prints the snapshot; after the connection drops it resumes and prints the change made meanwhile', async () => {
    const { proxy, watch } = await watchThrough();
    await waitFor(() => row('RUNNING').test(watch.stdout), { timeoutMs: 20_000, what: 'the snapshot row' });
    proxy.cut();
    expect((await f.admin.post(`/servers/${serverId}/stop`)).status).to.equal(202);
    await serverIs('STOPPED');
    expect(watch.stdout, 'nothing arrives while cut').to.not.match(row('STOPPED'));
    proxy.restore();
    await waitFor(() => row('STOPPED').test(watch.stdout), { timeoutMs: 30_000, what: 'the change made while the stream was down' });
    expect(watch.stdout.match(/^NAME/gm)).to.have.length(1);
    expect(rows(watch.stdout, 'RUNNING')).to.equal(1);
    expect(watch.stderr).to.equal('');
    // Still watching: a later change arrives too.
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitFor(() => rows(watch.stdout, 'RUNNING') === 2, { timeoutMs: 60_000, what: 'the later change' });
    await serverIs('RUNNING');
  });

  it('get --watch gives up with exit 1 when the stream stays lost for --reconnect-timeout', async () => {
    const { proxy, watch } = await watchThrough(['--reconnect-timeout', '2s']);
    await waitFor(() => row('RUNNING').test(watch.stdout), { timeoutMs: 20_000, what: 'the snapshot row' });
    const cutAt = Date.now();
    proxy.cut();
    expect(await watch.exited).to.equal(1);
    const tookMs = Date.now() - cutAt;
    expect(tookMs).to.be.within(2_000, 10_000);
    expect(watch.stderr).to.match(/the watch stream dropped and could not be resumed within 2s/);
  });
});
