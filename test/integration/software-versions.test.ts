import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { cairnVersion } from '../../src/shared/version.js';
import type { AuditEventPage, ServerDetail, SoftwareSyncResult, Team, TemplateSummary, TemplateVersionPage } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const small = { cpuMillis: 100, memoryBytes: 64 * 2 ** 20 };

describe('software versions from upstreams: PaperMC Fill v3 and Mojang piston-meta (a local upstream)', function () {
  this.timeout(60_000);
  let upstream: FakeUpstream;
  let t: TestController;
  let admin: ApiClient;
  let user: ApiClient;
  let teamId: string;

  before(async () => {
    upstream = await FakeUpstream.start();
    upstream.paper.set('paper', [
      { id: '1.21.10', java: 21, builds: [{ id: 12, channel: 'BETA', bytes: randomBytes(64) }, { id: 11, channel: 'STABLE', bytes: randomBytes(64) }] },
      { id: '1.21.4', java: 21, builds: [{ id: 232, channel: 'STABLE', bytes: randomBytes(64) }] },
      { id: '1.16.5', java: 8, builds: [{ id: 794, channel: 'STABLE', bytes: randomBytes(64) }] },
    ]);
    upstream.paper.set('velocity', [{ id: '3.4.0-SNAPSHOT', java: 21, builds: [{ id: 523, channel: 'STABLE', bytes: randomBytes(64) }] }]);
    upstream.paper.set('folia', [{ id: '1.21.4', java: 21, builds: [{ id: 7, channel: 'BETA', bytes: randomBytes(64) }] }]);
    upstream.mojang = [
      { id: '25w01a', type: 'snapshot', java: 21, bytes: randomBytes(32) },
      { id: '1.21.4', type: 'release', java: 21, bytes: randomBytes(32) },
      { id: '1.16.5', type: 'release', java: 8, bytes: randomBytes(32) },
      { id: '1.0', type: 'release' },
    ];
    t = await startTestController({ extraArgs: upstream.controllerArgs });
    admin = (await setupAdmin(t)).admin;
    user = (await createReadyUser(t, admin, 'player')).client;
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    // The first sync runs in the background of the start.
    await waitFor(async () => (await admin.get<TemplateVersionPage>('/templates/vanilla/versions')).body.items.some((v) => v.version === '1.16.5') || undefined, { what: 'the first sync' });
  });
  after(async () => {
    await t.dispose();
    await upstream.close();
  });

  it('lists a PaperMC project newest first with each version\'s Java and builds; a build is the newest STABLE unless named', async () => {
    const page = await user.get<TemplateVersionPage>('/templates/paper/versions');
    expect(page.status, page.text).to.equal(200);
    expect(page.body.items.map((v) => v.version)).to.deep.equal(['1.21.10', '1.21.4', '1.16.5']);
    expect(page.body.items[0]).to.deep.include({ java: { minimum: 21 }, latestBuild: '11' });
    expect(page.body.items[0].builds!.map((b) => [b.id, b.channel])).to.deep.equal([['12', 'BETA'], ['11', 'STABLE']]);
    expect(page.body.items[2].java).to.deep.equal({ minimum: 8 });
    expect(Object.keys(page.body.items[0].builds![0]).sort()).to.deep.equal(['channel', 'id', 'sha256', 'size']);
    const templates = (await user.get<{ items: TemplateSummary[] }>('/templates?limit=200')).body.items;
    expect(templates.find((x) => x.id === 'paper')?.versions).to.deep.equal(['1.21.10', '1.21.4', '1.16.5']);
    expect(templates.find((x) => x.id === 'folia')).to.deep.include({ platform: 'folia', versions: ['1.21.4'] });
  });

  it('lists Mojang releases only (no snapshots, none without a server download), each with its Java', async () => {
    const page = await user.get<TemplateVersionPage>('/templates/vanilla/versions');
    expect(page.body.items).to.deep.equal([{ version: '1.21.4', type: 'release', java: { minimum: 21 } }, { version: '1.16.5', type: 'release', java: { minimum: 8 } }]);
  });

  it('pages by version; an unknown template is not_found', async () => {
    const first = await user.get<TemplateVersionPage>('/templates/paper/versions?limit=2');
    expect(first.body.items.map((v) => v.version)).to.deep.equal(['1.21.10', '1.21.4']);
    const next = await user.get<TemplateVersionPage>(`/templates/paper/versions?limit=2&cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(next.body.items.map((v) => v.version)).to.deep.equal(['1.16.5']);
    expect(next.body.nextCursor).to.equal(undefined);
    expectProblem(await user.get('/templates/nothing/versions'), 404, 'not_found');
  });

  it('every request to the upstream says who asks', () => {
    expect(upstream.requests.length).to.be.greaterThan(0);
    for (const r of upstream.requests) expect(r.userAgent, r.path).to.match(new RegExp(`^cairn/${cairnVersion.replaceAll('.', '\\.')} \\(https?://`));
  });

  it('POST /servers refuses a version or a build the upstream does not list, naming the field', async () => {
    const create = (software: object) => admin.post<ServerDetail>('/servers', { name: `s-${Math.random().toString(36).slice(2, 8)}`, teamId, software, resources: small });
    expectProblem(await create({ template: 'paper', version: '1.20.1' }), 400, 'invalid_request', 'body.software.version');
    expectProblem(await create({ template: 'paper', version: '1.21.4', build: '999' }), 400, 'invalid_request', 'body.software.build');
    // Past the software check, a listed version and build only lack a Node here.
    expectProblem(await create({ template: 'paper', version: '1.21.10', build: '12' }), 409, 'insufficient_capacity');
  });

  it('POST /software/sync: global administrators only, audited; a failing upstream keeps the last good list and says why', async () => {
    expectProblem(await user.post('/software/sync'), 403, 'forbidden');
    upstream.paper.get('paper')!.unshift({ id: '1.21.11', java: 21, builds: [{ id: 1, channel: 'STABLE', bytes: randomBytes(64) }] });
    const synced = await admin.post<SoftwareSyncResult>('/software/sync');
    expect(synced.status, synced.text).to.equal(200);
    expect(synced.body.sources.find((s) => s.source === 'papermc:paper')).to.deep.include({ ok: true, versionCount: 4 });
    expect((await user.get<TemplateVersionPage>('/templates/paper/versions')).body.items[0].version).to.equal('1.21.11');

    upstream.failWith = 503;
    const failed = await admin.post<SoftwareSyncResult>('/software/sync');
    upstream.failWith = undefined;
    const paper = failed.body.sources.find((s) => s.source === 'papermc:paper')!;
    expect(paper).to.deep.include({ ok: false, versionCount: 4 });
    expect(paper.error).to.match(/^HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/v3\/projects\/paper\/versions$/);
    expect((await user.get<TemplateVersionPage>('/templates/paper/versions')).body.items).to.have.length(4);
    const audit = await admin.get<AuditEventPage>('/audit-events?action=software.sync');
    expect(audit.body.items.map((e) => e.outcome)).to.include.members(['SUCCESS', 'DENIED']);
  });

  it('a restart keeps the last synced lists while the upstream is unreachable', async () => {
    await upstream.close();
    t = await t.restart();
    const again = (await setupAdminLogin(t));
    expect((await again.get<TemplateVersionPage>('/templates/paper/versions')).body.items.map((v) => v.version)).to.deep.equal(['1.21.11', '1.21.10', '1.21.4', '1.16.5']);
  });
});

describe('an offline Controller: the snapshot shipped with Cairn', function () {
  this.timeout(30_000);
  let t: TestController;
  after(async () => t.dispose());

  it('offers the snapshot\'s versions when no upstream answers', async () => {
    t = await startTestController();
    const { admin } = await setupAdmin(t);
    expect((await admin.get<TemplateVersionPage>('/templates/paper/versions')).body.items.map((v) => v.version)).to.deep.equal(['1.21.4']);
    expect((await admin.get<TemplateVersionPage>('/templates/vanilla/versions')).body.items.map((v) => v.version)).to.deep.equal(['1.21.4', '1.21.1', '1.20.6']);
    const failed = await admin.post<SoftwareSyncResult>('/software/sync');
    expect(failed.body.sources.find((s) => s.source === 'mojang')).to.deep.include({ ok: false, versionCount: 3 });
    expect(failed.body.sources.find((s) => s.source === 'mojang')?.error).to.match(/^could not reach 127\.0\.0\.1:2: ECONNREFUSED$/);
  });
});

async function setupAdminLogin(t: TestController): Promise<ApiClient> {
  const login = await t.api.post('/auth/login', { username: 'admin', password: 'correct-horse-battery' });
  return t.api.withCookie(/(__Host-cairn_session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]);
}
