import { expect } from 'chai';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArchiveJob } from '../../src/controller/schemas/file-archives.js';
import { tarOf, zipOf, zipWithRenamedEntry } from '../support/archive-builders.js';
import type { AuditEventPage, RolePage } from '../support/api-types.js';
import { createReadyUser } from '../support/controller.js';
import type { Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { serverOpsRig } from '../support/server-ops-rig.js';
import { waitFor } from '../support/wait-for.js';
import { unzip } from '../support/zip-contents.js';

describe('archives through the files API (real Agent and simcraft)', function () {
  this.timeout(60_000);
  const rig = serverOpsRig();
  const { rootOf } = rig;
  let f: Fleet;
  let id: string;
  before(() => ({ f, id } = rig));

  const finished = async (job: ArchiveJob) => waitFor(async () => {
    const now = (await f.admin.get<ArchiveJob>(`/servers/${id}/files/jobs/${job.id}`)).body;
    return now.state === 'RUNNING' ? undefined : now;
  }, { timeoutMs: 20_000, what: `job ${job.id} to finish` });
  const extract = async (body: { path: string; into?: string }) => {
    const res = await f.admin.post<ArchiveJob>(`/servers/${id}/files/extract`, body);
    expect(res.status, res.text).to.equal(202);
    expect(res.body).to.include({ kind: 'EXTRACT', state: 'RUNNING', path: body.path });
    return finished(res.body);
  };

  it('extracts a zip and a tar.gz (202, then SUCCEEDED with the bytes)', async () => {
    await writeFile(join(rootOf(), 'pack.zip'), await zipOf({ 'world/': '', 'world/level.dat': 'level', 'config/a.yml': 'a: 1' }));
    const zipJob = await extract({ path: 'pack.zip', into: 'imported' });
    expect(zipJob).to.include({ state: 'SUCCEEDED', into: 'imported', bytes: 9 });
    expect(await readFile(join(rootOf(), 'imported/world/level.dat'), 'utf8')).to.equal('level');
    await writeFile(join(rootOf(), 'mods.tar.gz'), await tarOf([{ name: 'mods', type: 'directory' }, { name: 'mods/x.jar', content: 'jar' }], true));
    expect((await extract({ path: 'mods.tar.gz' })).state).to.equal('SUCCEEDED');
    expect(await readFile(join(rootOf(), 'mods/x.jar'), 'utf8')).to.equal('jar');
  });

  it('compresses then extracts the same tree back (zip and tar.gz)', async () => {
    await mkdir(join(rootOf(), 'src/deep'), { recursive: true });
    await writeFile(join(rootOf(), 'src/deep/file.txt'), 'round trip');
    for (const into of ['src.zip', 'src.tar.gz']) {
      const res = await f.admin.post<ArchiveJob>(`/servers/${id}/files/compress`, { paths: ['src'], into });
      expect(res.status, res.text).to.equal(202);
      expect((await finished(res.body)).state).to.equal('SUCCEEDED');
      const back = await extract({ path: into, into: `back-${into}` });
      expect(back.state).to.equal('SUCCEEDED');
      expect(await readFile(join(rootOf(), `back-${into}/src/deep/file.txt`), 'utf8')).to.equal('round trip');
    }
  });

  it('downloads a folder as a zip, streamed', async () => {
    await mkdir(join(rootOf(), 'dl/sub'), { recursive: true });
    await writeFile(join(rootOf(), 'dl/a.txt'), 'A');
    await writeFile(join(rootOf(), 'dl/sub/b.txt'), 'B'.repeat(3 * 1024 * 1024));
    const res = await fetch(`${f.t.baseUrl}/api/v1/servers/${id}/files/archive?path=dl`, { headers: { cookie: f.admin.auth.cookie! } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/zip');
    const files = await unzip(Buffer.from(await res.arrayBuffer()));
    expect(Object.keys(files).sort()).to.deep.equal(['dl/a.txt', 'dl/sub/b.txt']);
    expect(files['dl/sub/b.txt']).to.have.length(3 * 1024 * 1024);
    expectProblem(await f.admin.get(`/servers/${id}/files/archive?path=nowhere`), 404, 'not_found');
  });

  it('fails a hostile archive\'s job naming the entry, writing nothing outside', async () => {
    await writeFile(join(rootOf(), 'evil.zip'), await zipWithRenamedEntry('aa/bb/etc/passwd', '../../etc/passwd'));
    const zipJob = await extract({ path: 'evil.zip' });
    expect(zipJob.state).to.equal('FAILED');
    expect(zipJob.error).to.contain('../../etc/passwd');
    await writeFile(join(rootOf(), 'dev.tar'), await tarOf([{ name: 'ok.txt', content: 'fine' }, { name: 'null', type: 'character-device', devmajor: 1, devminor: 3 }]));
    const tarJob = await extract({ path: 'dev.tar', into: 'devs' });
    expect(tarJob).to.include({ state: 'FAILED' });
    expect(tarJob.error).to.match(/entry "null": is a device/);
    expect(tarJob.written).to.deep.equal(['devs/ok.txt']);
  });

  it('refuses an unknown format, a compress to tar.zst, and an unknown job', async () => {
    expectProblem(await f.admin.post(`/servers/${id}/files/extract`, { path: 'notes.txt' }), 400, 'invalid_request', 'body.path');
    expectProblem(await f.admin.post(`/servers/${id}/files/compress`, { paths: ['src'], into: 'x.tar.zst' }), 400, 'invalid_request', 'body.into');
    expectProblem(await f.admin.get(`/servers/${id}/files/jobs/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
  });

  it('needs files.write: a viewer may download but not extract or compress; audited', async () => {
    const roles = new Map((await f.admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const viewer = await createReadyUser(f.t, f.admin, 'vera');
    await f.admin.put(`/teams/${f.teamId}/members/${viewer.userId}`, { roleIds: [roles.get('viewer')] });
    expectProblem(await viewer.client.post(`/servers/${id}/files/extract`, { path: 'pack.zip' }), 403, 'forbidden');
    expectProblem(await viewer.client.post(`/servers/${id}/files/compress`, { paths: ['src'], into: 'v.zip' }), 403, 'forbidden');
    expect((await viewer.client.get(`/servers/${id}/files/archive?path=dl`)).status).to.equal(200);
    const events = (await f.admin.get<AuditEventPage>(`/audit-events?action=server.file.extract&targetId=${id}&limit=200`)).body.items;
    expect(events.map((e) => e.outcome)).to.include.members(['SUCCESS', 'DENIED']);
  });
});
