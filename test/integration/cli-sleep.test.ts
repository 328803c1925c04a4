import { expect } from 'chai';
import YAML from 'yaml';
import type { CreatedApiToken, Node, ServerDetail, ServerPage, Team } from '../support/api-types.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { waitForServer } from '../support/fleet.js';
import type { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const since = '2026-11-29T20:00:00.000Z';

/**
 * Sleeping servers in the built `cairn` (`npm run build` first) against a real Controller and a
 * fake Agent, which reports a server asleep as the real one does (runtime STOPPED, `sleeping`)
 * while it stays desired RUNNING: `get servers` and `describe` show it, `create server` and
 * `apply` set `sleep`.
 */
describe('cairn and sleeping servers: SLEEPING, describe, --sleep-after, apply sleep', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let agent: FakeAgent;
  let env: NodeJS.ProcessEnv;
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env, stdin });
  const ok = async (args: string[], stdin?: string) => {
    const res = await cairn(args, stdin);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  const apply = (server: Record<string, unknown>, ...flags: string[]) => cairn(['apply', '-f', '-', ...flags], YAML.stringify([{ kind: 'Server', team: 'Ops', ...server }]));
  /** The server as the API has it, to check what the CLI sent. */
  const detail = async (name: string) => {
    const item = (await admin.get<ServerPage>('/servers')).body.items.find((s) => s.name === name);
    expect(item, `server ${name}`).to.not.equal(undefined);
    return (await admin.get<ServerDetail>(`/servers/${item!.id}`)).body;
  };
  const createFlags = (name: string, ...more: string[]) => ['create', 'server', name, '--team', 'Ops', '--template', 'simcraft', '--version', '1.21.4', '--cpu', '100m', '--memory', '64Mi', '--node', 'node-1', ...more];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    expect((await admin.post<Team>('/teams', { name: 'Ops' })).status).to.equal(201);
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-1');
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.acceptsPlacements, { what: 'node-1 to accept placements' });
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-sleep' })).body.token;
    env = { CAIRN_URL: t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: '/nonexistent/cairn-credentials.json' };
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    agent?.stop();
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- as above
    await t?.dispose();
  });

  it('create server --sleep-after sets sleep (a duration, whole seconds), --no-wake-on-join with it; the API\'s range is the API\'s refusal', async () => {
    expect(await ok(createFlags('lobby', '--sleep-after', '10m'))).to.equal('server/lobby created\n');
    expect((await detail('lobby')).sleep).to.deep.equal({ afterEmptySeconds: 600, wakeOnJoin: true });
    expect(await ok(createFlags('arena', '--sleep-after', '90', '--no-wake-on-join'))).to.equal('server/arena created\n');
    expect((await detail('arena')).sleep).to.deep.equal({ afterEmptySeconds: 90, wakeOnJoin: false });

    const alone = await cairn(createFlags('nope', '--no-wake-on-join'));
    expect(alone.code).to.equal(2);
    expect(alone.stderr).to.equal('error: --no-wake-on-join needs --sleep-after\n');
    const fraction = await cairn(createFlags('nope', '--sleep-after', '1500ms'));
    expect(fraction.code).to.equal(2);
    expect(fraction.stderr).to.equal('error: --sleep-after: whole seconds, such as 600 or 10m\n');
    const short = await cairn(createFlags('nope', '--sleep-after', '5s'));
    expect(short.code).to.equal(1);
    expect(short.stderr).to.match(/^Error from server \(invalid_request\): .*sleep/);
  });

  it('get servers shows SLEEPING in RUNTIME for a server its Agent reports asleep, RUNNING and STOPPED otherwise; describe says since when', async () => {
    const lobby = await detail('lobby');
    expect((await admin.post(`/servers/${lobby.id}/start`)).status).to.equal(202);
    await waitForServer(admin, lobby.id, (s) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED', 'RUNNING');
    expect(await ok(['get', 'servers'])).to.match(/^lobby\s+Ops\s+node-1\s+RUNNING\s+READY\s+RUNNING\s+CONVERGED$/m)
      .and.match(/^arena\s+Ops\s+node-1\s+STOPPED\s+READY\s+STOPPED\s+CONVERGED$/m);

    agent.send({ serverId: lobby.id, runtimeState: 'RUNTIME_STATE_STOPPED', sleeping: { since } });
    await waitForServer(admin, lobby.id, (s) => s.status.sleeping === true, 'asleep');
    const listed = await ok(['get', 'servers']);
    expect(listed).to.match(/^NAME\s+TEAM\s+NODE\s+DESIRED\s+PHASE\s+RUNTIME\s+CONVERGENCE$/m)
      .and.match(/^lobby\s+Ops\s+node-1\s+RUNNING\s+READY\s+SLEEPING\s+CONVERGED$/m)
      .and.match(/^arena\s+Ops\s+node-1\s+STOPPED\s+READY\s+STOPPED\s+CONVERGED$/m);
    expect(await ok(['get', 'servers', 'lobby'])).to.match(/^lobby\s+Ops\s+node-1\s+RUNNING\s+READY\s+SLEEPING\s+CONVERGED$/m);
    // -o json prints what the API sent: the runtime state stays STOPPED there, beside `sleeping`.
    expect(JSON.parse(await ok(['get', 'server', 'lobby', '-o', 'json']))).to.deep.include({ runtimeState: 'STOPPED', sleeping: true });

    const described = await ok(['describe', 'server', 'lobby']);
    expect(described).to.match(/^Runtime state:\s+SLEEPING$/m)
      .and.match(new RegExp(`^Sleeping since:\\s+${since.replace(/\./g, '\\.')}$`, 'm'))
      .and.match(/^Sleep:\s+after 600s empty, wakes on join$/m);
    expect(await ok(['describe', 'node', 'node-1'])).to.match(/^ {2}lobby\s+RUNNING\s+READY\s+SLEEPING\s/m);
    const arena = await ok(['describe', 'server', 'arena']);
    expect(arena).to.match(/^Runtime state:\s+STOPPED$/m).and.match(/^Sleep:\s+after 90s empty, no wake on join \(cairn start wakes it\)$/m);
    expect(arena).to.not.include('Sleeping since');

    agent.send({ serverId: lobby.id, runtimeState: 'RUNTIME_STATE_RUNNING', sleeping: null, lastWake: { at: new Date().toISOString(), player: 'Alex' } });
    await waitForServer(admin, lobby.id, (s) => s.status.sleeping === undefined && s.status.runtimeState === 'RUNNING', 'awake');
    expect(await ok(['get', 'servers'])).to.match(/^lobby\s+Ops\s+node-1\s+RUNNING\s+READY\s+RUNNING\s+CONVERGED$/m);
    expect(await ok(['describe', 'server', 'lobby'])).to.match(/^Runtime state:\s+RUNNING$/m).and.not.include('Sleeping since');
  });

  it('apply carries sleep to PATCH (a dry run first, then for real, no restart said) and to POST; null turns it off; a second apply changes nothing', async () => {
    expect(await ok(createFlags('hub'))).to.equal('server/hub created\n');
    expect((await detail('hub')).sleep).to.equal(undefined);
    const file = { name: 'hub', sleep: { afterEmpty: '5m' } };
    const dry = await apply(file, '--dry-run');
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.equal('server/hub configured (dry run)\n  ~ sleep: off -> after 300s empty, wakes on join\n');
    expect((await detail('hub')).sleep, 'a dry run changes nothing').to.equal(undefined);
    const real = await apply(file);
    expect(real.code, real.stderr).to.equal(0);
    expect(real.stdout).to.equal('server/hub configured\n');
    expect((await detail('hub')).sleep).to.deep.equal({ afterEmptySeconds: 300, wakeOnJoin: true });
    expect((await apply({ name: 'hub', sleep: { afterEmptySeconds: 300, wakeOnJoin: true } })).stdout).to.equal('server/hub unchanged\n');

    const off = await apply({ name: 'hub', sleep: null }, '--dry-run');
    expect(off.stdout).to.equal('server/hub configured (dry run)\n  ~ sleep: after 300s empty, wakes on join -> off\n');
    expect((await apply({ name: 'hub', sleep: null })).code).to.equal(0);
    expect((await detail('hub')).sleep).to.equal(undefined);

    const cave = await apply({ name: 'cave', software: simcraft, resources: { cpu: '100m', memory: '64Mi' }, sleep: { afterEmptySeconds: 120, wakeOnJoin: false } });
    expect(cave.code, cave.stderr).to.equal(0);
    expect(cave.stdout).to.equal('server/cave created\n');
    expect((await detail('cave')).sleep).to.deep.equal({ afterEmptySeconds: 120, wakeOnJoin: false });

    const short = await apply({ name: 'hub', sleep: { afterEmpty: '5s' } });
    expect(short.code).to.equal(1);
    expect(short.stderr).to.match(/server\/hub: not applied: Error from server \(invalid_request\): .*sleep/);
    expect((await detail('hub')).sleep).to.equal(undefined);
  });
});
