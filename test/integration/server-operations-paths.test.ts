import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileList, Problem } from '../support/api-types.js';
import type { Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { serverOpsRig } from '../support/server-ops-rig.js';

/** Paths that must never reach outside a server's root, whatever the operation. */
const hostilePaths = [
  '..', '../', '../escape.txt', '../../escape.txt', './../escape.txt', 'a/../../escape.txt', 'plugins/../../escape.txt',
  '/etc/passwd', '/tmp/escape.txt', '//escape.txt', 'C:/escape.txt', '..\\escape.txt', 'sub\\..\\..\\escape.txt',
  'escape\u0000.txt', 'line\nbreak.txt', 'out/escape.txt', 'deep/out/escape.txt', 'loop/x',
];

describe('operating a server: console, files, server.properties (real Agent and simcraft) — file paths kept inside the root', function () {
  this.timeout(60_000);
  const rig = serverOpsRig();
  const { rootOf, q, put } = rig;
  let f: Fleet;
  let id: string;
  // The tests read the Fleet and the server the rig's before() made, under the names they always had.
  before(() => ({ f, id } = rig));

  let outside: string;

  before(async () => {
    outside = await mkdtemp(join(tmpdir(), 'cairn-outside-'));
  });
  after(async () => {
    if (outside) await rm(outside, { recursive: true, force: true });
  });

  it('refuses every hostile path with invalid_request and writes nothing outside the root', async () => {
    // Symlinks planted in the root (as a game or plugin could): to a directory outside, nested, and a loop.
    await writeFile(join(outside, 'secret.txt'), 'host secret');
    await symlink(outside, join(rootOf(), 'out'));
    await mkdir(join(rootOf(), 'deep'));
    await symlink(outside, join(rootOf(), 'deep', 'out'));
    await symlink('loop', join(rootOf(), 'loop'));
    await writeFile(join(rootOf(), 'stay.txt'), 'stays');
    const home = join(f.agentDir, 'servers', id);
    const before = (await readdir(home)).sort();
    for (const path of hostilePaths) {
      const why = `path ${JSON.stringify(path)}`;
      for (const res of [
        await put(path, 'pwned'),
        await f.admin.post(`/servers/${id}/files/directories${q(path)}`),
        await f.admin.delete(`/servers/${id}/files${q(path.endsWith('escape.txt') ? path : `${path}/secret.txt`)}`),
        await f.admin.get(`/servers/${id}/files/content${q(path)}`),
        await f.admin.post(`/servers/${id}/files/move`, { from: path, to: 'moved.txt' }),
        await f.admin.post(`/servers/${id}/files/move`, { from: 'stay.txt', to: path }),
      ]) {
        expect(res.status, `${why}: ${res.text}`).to.be.oneOf([400]);
        expect((res.body as Problem).code, why).to.equal('invalid_request');
      }
    }
    expectProblem(await f.admin.get(`/servers/${id}/files${q('out')}`), 400, 'invalid_request');
    expectProblem(await f.admin.get(`/servers/${id}/files/content${q('out/secret.txt')}`), 400, 'invalid_request');
    expectProblem(await f.admin.get(`/servers/${id}/files/content${q('deep/out/secret.txt')}`), 400, 'invalid_request');
    expectProblem(await f.admin.get(`/servers/${id}/files${q('..')}`), 400, 'invalid_request');
    // Nothing changed outside the root: the outside directory, the server's home, the Agent's data dir's parent.
    expect(await readdir(outside)).to.deep.equal(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).to.equal('host secret');
    expect((await readdir(home)).sort()).to.deep.equal(before);
    expect((await readdir(join(f.agentDir, 'servers'))).filter((n) => n.includes('escape'))).to.deep.equal([]);
    await expectMissing(join(f.agentDir, 'escape.txt'));
    await expectMissing('/tmp/escape.txt');
    // The listing hides links that lead outside; deleting a link removes the link, never the target.
    const list = await f.admin.get<FileList>(`/servers/${id}/files${q('.')}`);
    expect(list.body.items.map((i) => i.name)).to.not.include('out');
    expect((await f.admin.delete(`/servers/${id}/files${q('out')}`)).status).to.equal(204);
    expect(await readdir(outside)).to.deep.equal(['secret.txt']);
    await rm(join(rootOf(), 'deep'), { recursive: true });
    await rm(join(rootOf(), 'loop'));
    expect(await readFile(join(rootOf(), 'stay.txt'), 'utf8')).to.equal('stays');
    await rm(join(rootOf(), 'stay.txt'));
  });

  it('never reads or lists the forwarding secret\'s file through a link the game planted to it or to its directory', async () => {
    await mkdir(join(rootOf(), 'config'), { recursive: true });
    await writeFile(join(rootOf(), 'config', 'paper-global.yml'), 'proxies:\n  velocity:\n    secret: the-shared-secret\n');
    await symlink('config/paper-global.yml', join(rootOf(), 'leak.yml'));
    await symlink(join(rootOf(), 'config', 'paper-global.yml'), join(rootOf(), 'abs-leak.yml'));
    await symlink('config', join(rootOf(), 'cfg'));
    for (const path of ['leak.yml', 'abs-leak.yml', 'cfg/paper-global.yml']) {
      const read = await f.admin.get(`/servers/${id}/files/content${q(path)}`);
      expectProblem(read, 403, 'read_only', 'forwarding secret');
      expect(read.text, path).to.not.include('the-shared-secret');
    }
    const names = async (dir: string) => (await f.admin.get<FileList>(`/servers/${id}/files${q(dir)}`)).body.items.map((i) => i.name);
    expect(await names('.')).to.not.include.members(['leak.yml', 'abs-leak.yml']);
    expect(await names('cfg')).to.not.include('paper-global.yml');
    for (const link of ['leak.yml', 'abs-leak.yml', 'cfg']) await rm(join(rootOf(), link));
  });

  it('answers a name over 255 bytes with invalid_request on every file operation, never 500', async () => {
    const long = 'n'.repeat(300);
    for (const path of [long, `${long}/child.txt`, `plugins/${'é'.repeat(130)}.txt`]) {
      for (const res of [
        await put(path, 'x'),
        await f.admin.post(`/servers/${id}/files/directories${q(path)}`),
        await f.admin.delete(`/servers/${id}/files${q(path)}`),
        await f.admin.get(`/servers/${id}/files/content${q(path)}`),
        await f.admin.get(`/servers/${id}/files${q(path)}`),
      ]) {
        expect(res.status, `${path.slice(0, 20)}: ${res.text}`).to.be.oneOf([400, 404]);
        expect((res.body as Problem).code).to.be.oneOf(['invalid_request', 'not_found']);
      }
    }
    expectProblem(await put(long, 'x'), 400, 'invalid_request', 'path');
  });

  it('.cairn is read-only: write, mkdir and delete are refused, reading shows the installed software', async () => {
    // The software lies beside the root, out of the game's reach; the files API shows it as `.cairn`.
    const cairn = join(rootOf(), '..', 'software');
    const before = (await readdir(cairn)).sort();
    expectProblem(await put('.cairn/evil.jar', 'x'), 403, 'read_only');
    expectProblem(await put('./.cairn/evil.jar', 'x'), 403, 'read_only');
    expectProblem(await f.admin.post(`/servers/${id}/files/directories${q('.cairn/sub')}`), 403, 'read_only');
    expectProblem(await f.admin.delete(`/servers/${id}/files${q('.cairn')}`), 403, 'read_only');
    expectProblem(await f.admin.delete(`/servers/${id}/files${q(`.cairn/${before[0]}`)}`), 403, 'read_only');
    // Through a symlink into .cairn too.
    await symlink('.cairn', join(rootOf(), 'soft'));
    expectProblem(await put('soft/evil.jar', 'x'), 403, 'read_only');
    expect((await readdir(cairn)).sort()).to.deep.equal(before);
    const listed = await f.admin.get<{ items: { name: string }[] }>(`/servers/${id}/files${q('.cairn')}`);
    expect(listed.status).to.equal(200);
    expect(listed.body.items.map((i) => i.name).sort()).to.deep.equal(before);
    await rm(join(rootOf(), 'soft'));
  });
});

async function expectMissing(path: string): Promise<void> {
  const found = await stat(path).then(() => true, () => false);
  expect(found, `${path} must not exist`).to.equal(false);
}
