import { expect } from 'chai';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileList, Network, ServerDetail } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import { buildWorld, simcraft, smallResources, type World } from '../support/fixture-world.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

/**
 * The network is one trust domain: members share the forwarding secret. A team admin joins the
 * network only once a global administrator admitted the team, and nobody reads, lists or writes
 * the secret's file through the files API (issue 26, finding 4).
 */
describe('network admission and the forwarding secret\'s file', function () {
  this.timeout(60_000);
  let w: World;
  let tam: ApiClient;
  let serverRoot: string;

  before(async () => {
    w = await buildWorld();
    const user = await createReadyUser(w.t, w.admin, 'tam');
    const set = await w.admin.put(`/teams/${w.teamId}/members/${user.userId}`, { roleIds: [w.builtinRoles.get('admin')] });
    expect(set.status).to.equal(200);
    tam = user.client;
    // The fake Node keeps each server's files in a temporary directory named by the server's id, made at the first file operation.
    expect((await w.admin.post(`/servers/${w.serverId}/files/directories?path=config`)).status).to.equal(201);
    const fakeRoots = (await readdir(tmpdir())).filter((d) => d.startsWith('cairn-fake-files-'));
    for (const d of fakeRoots) {
      if ((await readdir(join(tmpdir(), d))).includes(w.serverId)) serverRoot = join(tmpdir(), d, w.serverId);
    }
    expect(serverRoot, 'the fake Node\'s root of the world server').to.be.a('string');
  });

  after(async () => w.dispose());

  it('admits no team at first; a team admin of a team not admitted cannot set inNetwork, on create or PATCH', async () => {
    expect((await w.admin.get<Network>('/network')).body.teamIds).to.deep.equal([]);
    const body = { name: 'joiner', teamId: w.teamId, software: simcraft, resources: smallResources, nodeId: w.nodeId, inNetwork: true };
    expectProblem(await tam.post('/servers', body), 403, 'forbidden', 'inNetwork: the team');
    expectProblem(await tam.patch(`/servers/${w.serverId}`, { inNetwork: true }), 403, 'forbidden', 'PATCH /network {teamIds}');
    expect((await w.admin.get<ServerDetail>(`/servers/${w.serverId}`)).body.inNetwork).to.equal(false);
    // A team admin cannot admit its own team.
    expectProblem(await tam.patch('/network', { teamIds: [w.teamId] }), 403, 'forbidden');
  });

  it('lets a team admin join once a global administrator admitted the team; GET /network shows it', async () => {
    expectProblem(await w.admin.patch('/network', { teamIds: ['00000000-0000-4000-8000-000000000000'] }), 400, 'invalid_request', 'body.teamIds');
    const admitted = await w.admin.patch<Network>('/network', { teamIds: [w.teamId, w.teamId] });
    expect(admitted.status).to.equal(200);
    expect(admitted.body.teamIds).to.deep.equal([w.teamId]);
    expect((await tam.get<Network>('/network')).body.teamIds).to.deep.equal([w.teamId]);
    const joined = await tam.patch<ServerDetail>(`/servers/${w.serverId}`, { inNetwork: true });
    expect(joined.status, joined.text).to.equal(200);
    expect(joined.body.inNetwork).to.equal(true);
    const made = await tam.post<ServerDetail>('/servers', { name: 'joiner', teamId: w.teamId, software: simcraft, resources: smallResources, nodeId: w.nodeId, inNetwork: true });
    expect(made.status, made.text).to.equal(201);
    expect(made.body.inNetwork).to.equal(true);
    // Taking the team out again stops further joins; the global administrator still may.
    expect((await w.admin.patch<Network>('/network', { teamIds: [] })).body.teamIds).to.deep.equal([]);
    expectProblem(await tam.post('/servers', { name: 'late', teamId: w.teamId, software: simcraft, resources: smallResources, nodeId: w.nodeId, inNetwork: true }), 403, 'forbidden');
    const byAdmin = await w.admin.post<ServerDetail>('/servers', { name: 'late', teamId: w.teamId, software: simcraft, resources: smallResources, nodeId: w.nodeId, inNetwork: true });
    expect(byAdmin.status, byAdmin.text).to.equal(201);
  });

  it('never reads, lists or writes config/paper-global.yml, for a team admin or a global administrator', async () => {
    await writeFile(join(serverRoot, 'config', 'paper-global.yml'), 'proxies:\n  velocity:\n    secret: the-shared-secret\n');
    await writeFile(join(serverRoot, 'config', 'other.yml'), 'x: 1\n');
    const put = (c: ApiClient, path: string) => c.request('PUT', `/servers/${w.serverId}/files/content?path=${encodeURIComponent(path)}`, { rawBody: Buffer.from('mine'), contentType: 'application/octet-stream' });
    for (const c of [tam, w.admin]) {
      for (const path of ['config/paper-global.yml', './config//paper-global.yml']) {
        const read = await c.get(`/servers/${w.serverId}/files/content?path=${encodeURIComponent(path)}`);
        expectProblem(read, 403, 'read_only', 'forwarding secret');
        expect(read.text).to.not.include('the-shared-secret');
        expectProblem(await put(c, path), 403, 'read_only');
        expectProblem(await c.delete(`/servers/${w.serverId}/files?path=${encodeURIComponent(path)}`), 403, 'read_only');
      }
      const listed = await c.get<FileList>(`/servers/${w.serverId}/files?path=config`);
      expect(listed.status).to.equal(200);
      expect(listed.body.items.map((e) => e.name)).to.deep.equal(['other.yml']);
      // Other files of the directory stay readable.
      expect((await c.get(`/servers/${w.serverId}/files/content?path=config/other.yml`)).status).to.equal(200);
    }
  });
});
