import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import type { CreatedApiToken, TemplateVersionPage } from '../support/api-types.js';
import { adminCredentials, createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import type { ApiClient } from '../support/http.js';
import { runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

/** `cairn get versions` and `cairn sync software` as users run them (the built binary, `npm run build` first), against a local upstream. */
describe('cairn get versions and cairn sync software: the built binary', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let t: TestController;
  let admin: ApiClient;
  let home: string;
  let playerToken: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const cairn = (args: string[], stdin?: string) => runBuilt('cli', args, { env: env(), stdin });

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.paper.set('paper', [
      { id: '1.21.10', java: 21, builds: [{ id: 12, channel: 'BETA', bytes: randomBytes(64) }, { id: 11, channel: 'STABLE', bytes: randomBytes(64) }] },
      { id: '1.16.5', java: 8, builds: [{ id: 794, channel: 'STABLE', bytes: randomBytes(64) }] },
    ]);
    upstream.mojang = [{ id: '1.21.4', type: 'release', java: 21, bytes: randomBytes(32) }];
    t = await startTestController({ extraArgs: upstream.controllerArgs });
    admin = (await setupAdmin(t)).admin;
    await waitFor(async () => (await admin.get<TemplateVersionPage>('/templates/paper/versions')).body.items.some((v) => v.version === '1.16.5') || undefined, { what: 'the first sync' });
    const player = (await createReadyUser(t, admin, 'player')).client;
    playerToken = (await player.post<CreatedApiToken>('/me/tokens', { name: 'cli' })).body.token;
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-'));
    const login = await cairn(['login', '--url', t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], adminCredentials.password + '\n');
    expect(login.code, login.stderr).to.equal(0);
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning these */
    await t?.dispose();
    await upstream?.close();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
    await rm(home, { recursive: true, force: true });
  });

  it('get versions TEMPLATE prints VERSION, JAVA, LATEST BUILD newest first; -o wide adds the builds', async () => {
    const res = await cairn(['get', 'versions', 'paper']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal(
      'VERSION   JAVA   LATEST BUILD\n'
      + '1.21.10   21     11\n'
      + '1.16.5    8      794\n',
    );
    const wide = await cairn(['get', 'version', 'paper', '-o', 'wide']);
    expect(wide.stdout.split('\n')[1]).to.match(/^1\.21\.10\s+21\s+11\s+<none>\s+12,11$/);
    const simcraft = await cairn(['get', 'versions', 'simcraft']);
    expect(simcraft.stdout).to.match(/\n1\.21\.4\s+<none>\s+<none>\n/);
  });

  it('-o json prints the API\'s items; -o yaml the same; -o name version/<v>', async () => {
    const json = await cairn(['get', 'versions', 'vanilla', '-o', 'json']);
    expect(json.code, json.stderr).to.equal(0);
    expect(JSON.parse(json.stdout)).to.deep.equal({ items: [{ version: '1.21.4', type: 'release', java: { minimum: 21 } }] });
    const yaml = await cairn(['get', 'versions', 'paper', '-o', 'yaml']);
    const parsed = YAML.parse(yaml.stdout) as TemplateVersionPage;
    expect(parsed.items.map((v) => [v.version, v.java?.minimum, v.latestBuild])).to.deep.equal([['1.21.10', 21, '11'], ['1.16.5', 8, '794']]);
    expect((await cairn(['get', 'versions', 'paper', '-o', 'name'])).stdout).to.equal('version/1.21.10\nversion/1.16.5\n');
  });

  it('without a template is a usage error (exit 2); an unknown template is the API\'s not_found (exit 1)', async () => {
    const missing = await cairn(['get', 'versions']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('TEMPLATE');
    const unknown = await cairn(['get', 'versions', 'nothing']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('Error from server (not_found)');
  });

  it('sync software prints each source\'s result; a failing upstream says why and still exits 0 (its last list stays)', async () => {
    const res = await cairn(['sync', 'software']);
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^SOURCE\s+OK\s+VERSIONS\s+SYNCED\s+ERROR$/);
    expect(lines.find((l) => l.startsWith('papermc:paper '))).to.match(/^papermc:paper\s+yes\s+2\s+\d{4}-/);
    expect(lines.find((l) => l.startsWith('mojang '))).to.match(/^mojang\s+yes\s+1\s+/);
    upstream.failWith = 503;
    try {
      const failed = await cairn(['sync', 'software', '-o', 'json']);
      expect(failed.code, failed.stderr).to.equal(0);
      const paper = (JSON.parse(failed.stdout) as { sources: { source: string; ok: boolean; versionCount: number; error?: string }[] }).sources.find((s) => s.source === 'papermc:paper');
      expect(paper).to.deep.include({ ok: false, versionCount: 2 });
      expect(paper?.error).to.include('503');
    } finally {
      upstream.failWith = undefined;
    }
  });

  it('sync software is for global administrators: anyone else gets the API\'s refusal (exit 1); an unknown thing to sync is exit 2', async () => {
    const res = await cairn(['sync', 'software', '--url', t.baseUrl, '--token', playerToken]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.include('Error from server (forbidden)');
    expect((await cairn(['sync', 'catalogue'])).code).to.equal(2);
  });
});
