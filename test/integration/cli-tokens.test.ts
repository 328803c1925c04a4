import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiTokenPage, CreatedApiToken, Team } from '../support/api-types.js';
import { adminCredentials, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';

/** `cairn create token` with and without a scope, as users run it (the built binary, `npm run build` first). */
describe('cairn create token: scoped API tokens from the CLI', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let home: string;
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: { CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' }, stdin });

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    await admin.post<Team>('/teams', { name: 'Ops' });
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-tokens-'));
    const login = await cairn(['login', '--url', t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
  });
  after(async () => {
    await t.dispose();
    await rm(home, { recursive: true, force: true });
  });

  it('prints a scoped token\'s secret once; the token does only what its scope says', async () => {
    const res = await cairn(['create', 'token', 'ci-restart', '--permission', 'servers.read,servers.start', '--permission', 'servers.stop', '--team', 'Ops']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stderr).to.include('token/ci-restart created (scoped)');
    const secret = res.stdout.trim();
    expect(secret).to.match(/^cairn_pat_[0-9A-Za-z]{40}$/);
    const listed = (await admin.get<ApiTokenPage>('/me/tokens?limit=100')).body.items.find((x) => x.name === 'ci-restart');
    const team = (await admin.get<{ items: Team[] }>('/teams')).body.items.find((x) => x.name === 'Ops')!;
    expect(listed).to.deep.include({ permissions: ['servers.read', 'servers.start', 'servers.stop'], teamIds: [team.id] });
    const scoped = new ApiClient(t.baseUrl, { token: secret });
    expect((await scoped.get('/users')).status).to.equal(403);
  });

  it('-o json prints the created token with its scope; a permission the spec does not list is refused by name', async () => {
    const res = await cairn(['create', 'token', 'reader', '--permission', 'servers.read', '-o', 'json']);
    expect(res.code, res.stderr).to.equal(0);
    const created = JSON.parse(res.stdout) as CreatedApiToken;
    expect(created).to.deep.include({ name: 'reader', permissions: ['servers.read'] });
    const bad = await cairn(['create', 'token', 'bad', '--permission', 'servers.fly']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('body.permissions');
  });
});
