import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDetail } from '../support/api-types.js';
import { adminCredentials } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { runBuilt } from '../support/run-program.js';

/** `cairn upgrade` as users run it (the built binary, `npm run build` first) against a real Controller and Agent. */
describe('cairn upgrade: the built binary follows a software update to its end', function () {
  this.timeout(120_000);
  let f: Fleet;
  let home: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: env(), stdin });

  before(async () => {
    f = await startFleet();
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    const login = await cairn(['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
    const res = await f.admin.post<ServerDetail>('/servers', { name: 'hub', teamId: f.teamId, software: { template: 'simcraft', version: '1.20.6' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('upgrades, printing each step and the result; exit 0', async () => {
    const res = await cairn(['upgrade', 'hub', '--version', '1.21.1']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal('server/hub updated to simcraft 1.21.1\n');
    expect(res.stderr).to.include('server/hub: fetching the new software');
  });

  it('a refusal exits 1 with the problem\'s detail: a downgrade, an unknown version', async () => {
    const down = await cairn(['upgrade', 'hub', '--version', '1.20.6']);
    expect(down.code).to.equal(1);
    expect(down.stderr).to.include('Error from server (downgrade_refused)').and.include('1.20.6');
    const unknown = await cairn(['upgrade', 'hub', '--version', '7.7.7']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('Error from server (invalid_request): body.version');
  });

  it('an update that rolls back exits 1 with the UPDATE_FAILED message', async () => {
    const hub = (await f.admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((x) => x.name === 'hub')!;
    await f.admin.post(`/servers/${hub.id}/start`);
    await waitForServer(f.admin, hub.id, (s) => s.status.runtimeState === 'RUNNING', 'RUNNING', 30_000);
    const res = await cairn(['upgrade', 'hub', '--version', '1.21.4-crash']);
    expect(res.code, res.stdout).to.equal(1);
    expect(res.stderr).to.include('server/hub: Updating to simcraft 1.21.4-crash failed while');
    const s = (await f.admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((x) => x.name === 'hub')!;
    expect(s.software.version).to.equal('1.21.1');
  });

  it('apply with another software.version runs the same update; a second apply changes nothing', async () => {
    const file = join(home, 'hub.yaml');
    await writeFile(file, 'kind: Server\nname: hub\nteam: Ops\nsoftware: {template: simcraft, version: "1.21.4"}\nresources: {cpu: 500m, memory: 1Gi}\n');
    const applied = await cairn(['apply', '-f', file]);
    expect(applied.code, applied.stderr).to.equal(0);
    // hub runs (the rolled-back update started it again): the update's stop and start is said.
    expect(applied.stdout).to.equal('server/hub configured\n  ~ software.version: 1.21.1 -> 1.21.4 (will restart the running server)\n');
    expect((await f.admin.get<{ items: ServerDetail[] }>('/servers')).body.items.find((x) => x.name === 'hub')!.software.version).to.equal('1.21.4');
    expect((await cairn(['apply', '-f', file])).stdout).to.equal('server/hub unchanged\n');
  });
});
