import { expect } from 'chai';
import { join } from 'node:path';
import YAML from 'yaml';
import type { CreatedApiToken, PluginInstallation, ServerDetail } from '../support/api-types.js';
import { startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { runBuilt } from '../support/run-program.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const Mi = 2 ** 20;

/**
 * `cairn apply` as users run it (the built binary, `npm run build` first) against a real
 * Controller with the sample catalog and an Agent running simcraft: catalog slugs, files that
 * name only some fields, refusals before the first change, and changes that restart a running game.
 */
describe('cairn apply: slugs, partial files, all-or-nothing, restarts said', function () {
  this.timeout(120_000);
  let f: Fleet;
  let token: string;
  let hubId: string;
  const apply = (server: Record<string, unknown>, ...flags: string[]) =>
    runBuilt('cli', ['apply', '-f', '-', ...flags], {
      stdin: YAML.stringify([{ kind: 'Server', team: 'Ops', ...server }]),
      env: { CAIRN_URL: f.t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: join(f.agentDir, 'no-credentials.json') },
    });
  const serverNamed = async (name: string) => (await f.admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((s) => s.name === name);

  before(async () => {
    f = await startFleet();
    token = (await f.admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-apply' })).body.token;
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'hub', teamId: f.teamId, software: simcraft, resources: { cpuMillis: 500, memoryBytes: 512 * Mi }, nodeId: f.nodeId });
    expect(created.status, created.text).to.equal(201);
    hubId = created.body.id;
    await waitForServer(f.admin, hubId, (s) => s.phase === 'READY', 'READY', 60_000);
    expect((await f.admin.post(`/servers/${hubId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, hubId, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 60_000);
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('a memory change of a running server says it will restart it, with --dry-run and for real; and it does', async () => {
    const file = { name: 'hub', software: simcraft, resources: { cpu: '500m', memory: '768Mi' } };
    const line = '  ~ resources.memory: 512Mi -> 768Mi (will restart the running server)\n';
    const dry = await apply(file, '--dry-run');
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout).to.equal(`server/hub configured (dry run)\n${line}`);
    const startedAt = (await f.admin.get<ServerDetail>(`/servers/${hubId}`)).body.status.startedAt;
    const real = await apply(file);
    expect(real.code, real.stderr).to.equal(0);
    expect(real.stdout).to.equal(`server/hub configured\n${line}`);
    await waitForServer(f.admin, hubId, (s) => s.status.runtimeState === 'RUNNING' && s.status.startedAt !== startedAt && s.resources.memoryBytes === 768 * Mi, 'restarted with 768Mi', 60_000);
  });

  it('a plugin named by its catalog slug installs the catalog plugin; a slug no plugin has is refused by name', async () => {
    const res = await apply({ name: 'hub', software: simcraft, resources: { cpu: '500m', memory: '768Mi' }, plugins: ['luckperms'] });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('server/hub configured\n');
    const installed = (await f.admin.get<{ items: PluginInstallation[] }>(`/servers/${hubId}/plugins`)).body.items.map((p) => p.pluginId);
    expect(installed).to.include('sample:luckperms');
    expect((await apply({ name: 'hub', plugins: ['luckperms', 'sample:luckperms'] })).stdout).to.equal('server/hub unchanged\n');
    const unknown = await apply({ name: 'hub', plugins: ['nosuchplugin'] });
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('server/hub: not applied: no catalog plugin has the slug "nosuchplugin"');
  });

  it('an existing server\'s file may leave out software and resources; a new one is refused naming what it lacks, and not created', async () => {
    const res = await apply({ name: 'hub', properties: { motd: 'Hub' } });
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('server/hub configured\n');
    const fresh = await apply({ name: 'fresh', software: simcraft, resources: { memory: '256Mi' } });
    expect(fresh.code).to.equal(1);
    expect(fresh.stderr).to.include('server/fresh: not applied: the server does not exist, and creating it needs resources.cpu');
    expect(await serverNamed('fresh')).to.equal(undefined);
  });

  it('a wrong plugin version refuses a new server before it is created; a step failing after the creation says "created, but"', async () => {
    const bad = await apply({ name: 'arena', software: simcraft, resources: { cpu: '250m', memory: '256Mi' }, plugins: [{ id: 'sample:luckperms', version: '9.9.9' }] });
    expect(bad.code).to.equal(1);
    expect(await serverNamed('arena'), 'the refused server was created').to.equal(undefined);
    expect(bad.stderr).to.include('server/arena: not applied: plugin sample:luckperms has no version "9.9.9" in the catalog');

    const file = { name: 'arena', software: simcraft, resources: { cpu: '250m', memory: '256Mi' }, properties: { motd: 'Arena' } };
    const partly = await apply(file, '--timeout', '1ms');
    expect(partly.code).to.equal(1);
    expect(partly.stdout).to.equal('');
    expect(partly.stderr).to.include('server/arena: created, but its properties and plugins were not set: it was not installed within 1ms; apply again to finish')
      .and.include('1 of 1 servers not applied (1 of them partly)');
    const arena = await serverNamed('arena');
    expect(arena).to.not.equal(undefined);
    await waitForServer(f.admin, arena!.id, (s) => s.phase === 'READY', 'READY', 60_000);
    const again = await apply(file);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.equal('server/arena configured\n');
  });

  it('--dry-run is refused where the real run would be: a new server or a resize the fleet has no room for, with the API\'s code; nothing changes', async () => {
    const giant = await apply({ name: 'giant', software: simcraft, resources: { cpu: '500m', memory: '4096Gi' } }, '--dry-run');
    expect(giant.code).to.equal(1);
    expect(giant.stdout).to.equal('');
    expect(giant.stderr).to.include('server/giant: not applied: Error from server (insufficient_capacity): No Node that accepts placements has room for this reservation')
      .and.include('1 of 1 servers not applied');
    expect(await serverNamed('giant')).to.equal(undefined);

    await waitForServer(f.admin, hubId, (s) => s.phase === 'READY', 'READY', 60_000);
    const generation = (await f.admin.get<ServerDetail>(`/servers/${hubId}`)).body.generation;
    const huge = await apply({ name: 'hub', resources: { memory: '4096Gi' } }, '--dry-run');
    expect(huge.code).to.equal(1);
    expect(huge.stderr).to.include('server/hub: not applied: Error from server (insufficient_capacity): The reservation');
    const fits = await apply({ name: 'hub', resources: { memory: '640Mi' } }, '--dry-run');
    expect(fits.code, fits.stderr).to.equal(0);
    expect(fits.stdout).to.match(/^server\/hub configured \(dry run\)\n {2}~ resources\.memory: 768Mi -> 640Mi/);
    const hub = (await f.admin.get<ServerDetail>(`/servers/${hubId}`)).body;
    expect(hub.resources.memoryBytes).to.equal(768 * Mi);
    expect(hub.generation).to.equal(generation);
  });
});
