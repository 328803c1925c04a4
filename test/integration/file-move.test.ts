import { expect } from 'chai';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEventPage, FileList, FileMove } from '../support/api-types.js';
import type { Fleet } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { serverOpsRig } from '../support/server-ops-rig.js';

const exists = (path: string) => lstat(path).then(() => true, () => false);

describe('moving and renaming a server\'s files (real Agent and simcraft)', function () {
  this.timeout(60_000);
  const rig = serverOpsRig();
  const { rootOf, put } = rig;
  let f: Fleet;
  let id: string;
  let outside: string;
  before(async () => {
    ({ f, id } = rig);
    outside = await mkdtemp(join(tmpdir(), 'cairn-move-outside-'));
    await writeFile(join(outside, 'host.txt'), 'host file');
  });
  after(async () => {
    if (outside) await rm(outside, { recursive: true, force: true });
  });
  const move = (body: FileMove) => f.admin.post(`/servers/${id}/files/move`, body);

  it('renames a file in its folder (204): the bytes are at the new name, none at the old', async () => {
    expect((await put('notes.txt', 'my notes')).status).to.equal(204);
    const res = await move({ from: 'notes.txt', to: 'renamed.txt' });
    expect(res.status, res.text).to.equal(204);
    expect(await readFile(join(rootOf(), 'renamed.txt'), 'utf8')).to.equal('my notes');
    expect(await exists(join(rootOf(), 'notes.txt'))).to.equal(false);
  });

  it('moves a folder with everything in it into another folder', async () => {
    await mkdir(join(rootOf(), 'box', 'inner'), { recursive: true });
    await writeFile(join(rootOf(), 'box', 'inner', 'a.txt'), 'deep');
    await mkdir(join(rootOf(), 'dest'));
    expect((await move({ from: './box/', to: 'dest/box' })).status).to.equal(204);
    expect(await readFile(join(rootOf(), 'dest', 'box', 'inner', 'a.txt'), 'utf8')).to.equal('deep');
    expect(await exists(join(rootOf(), 'box'))).to.equal(false);
    const listed = await f.admin.get<FileList>(`/servers/${id}/files?path=dest`);
    expect(listed.body.items.map((i) => [i.name, i.type])).to.deep.equal([['box', 'DIRECTORY']]);
  });

  it('refuses a destination that exists with conflict naming body.to, and replaces nothing', async () => {
    await writeFile(join(rootOf(), 'one.txt'), 'one');
    await writeFile(join(rootOf(), 'two.txt'), 'two');
    expectProblem(await move({ from: 'one.txt', to: 'two.txt' }), 409, 'conflict', 'body.to: two.txt already exists');
    expectProblem(await move({ from: 'one.txt', to: 'dest' }), 409, 'conflict', 'body.to');
    expect(await readFile(join(rootOf(), 'one.txt'), 'utf8')).to.equal('one');
    expect(await readFile(join(rootOf(), 'two.txt'), 'utf8')).to.equal('two');
  });

  it('answers not_found naming body.from for a missing source, and body.to for a missing destination folder', async () => {
    expectProblem(await move({ from: 'missing.txt', to: 'found.txt' }), 404, 'not_found', 'body.from: missing.txt does not exist');
    expectProblem(await move({ from: 'one.txt', to: 'nowhere/one.txt' }), 404, 'not_found', 'body.to');
  });

  it('refuses bad paths with invalid_request naming the side: outside the root, the root, a folder into itself, an empty path', async () => {
    expectProblem(await move({ from: '../escape.txt', to: 'x.txt' }), 400, 'invalid_request', 'body.from');
    expectProblem(await move({ from: 'one.txt', to: '/tmp/escape.txt' }), 400, 'invalid_request', 'body.to');
    expectProblem(await move({ from: 'one.txt', to: 'a\\..\\..\\escape.txt' }), 400, 'invalid_request', 'body.to');
    expectProblem(await move({ from: '.', to: 'elsewhere' }), 400, 'invalid_request', 'body.from');
    expectProblem(await move({ from: 'dest', to: 'dest/box/dest' }), 400, 'invalid_request', 'body.to');
    expectProblem(await move({ from: '', to: 'x.txt' }), 400, 'invalid_request', 'body.from');
    expectProblem(await move({ from: 'one.txt', to: 'n'.repeat(300) }), 400, 'invalid_request', 'body.to');
    expect(await readFile(join(rootOf(), 'one.txt'), 'utf8')).to.equal('one');
  });

  it('never leads outside the root through a symlink the game planted; the link itself moves, never its target', async () => {
    await symlink(outside, join(rootOf(), 'out'));
    expectProblem(await move({ from: 'one.txt', to: 'out/stolen.txt' }), 400, 'invalid_request', 'body.to');
    expectProblem(await move({ from: 'out/host.txt', to: 'taken.txt' }), 400, 'invalid_request', 'body.from');
    expect(await readdir(outside)).to.deep.equal(['host.txt']);
    expect(await exists(join(rootOf(), 'one.txt'))).to.equal(true);
    expect((await move({ from: 'out', to: 'out-renamed' })).status).to.equal(204);
    expect(await readdir(outside)).to.deep.equal(['host.txt']);
    expect(await readFile(join(outside, 'host.txt'), 'utf8')).to.equal('host file');
    await rm(join(rootOf(), 'out-renamed'));
  });

  it('never moves .cairn, or the forwarding secret\'s file or a folder holding it, nor onto them: read_only', async () => {
    await mkdir(join(rootOf(), 'config'), { recursive: true });
    await writeFile(join(rootOf(), 'config', 'paper-global.yml'), 'proxies:\n  velocity:\n    secret: the-shared-secret\n');
    await symlink('config', join(rootOf(), 'cfg'));
    expectProblem(await move({ from: '.cairn', to: 'software' }), 403, 'read_only', 'body.from');
    expectProblem(await move({ from: 'one.txt', to: '.cairn/one.txt' }), 403, 'read_only', 'body.to');
    expectProblem(await move({ from: 'config', to: 'open-config' }), 403, 'read_only', 'body.from');
    expectProblem(await move({ from: 'config/paper-global.yml', to: 'leak.yml' }), 403, 'read_only', 'forwarding secret');
    expectProblem(await move({ from: 'one.txt', to: './config//paper-global.yml' }), 403, 'read_only', 'body.to');
    // Through the game's link the text names no secret: the Node finds it where the walk arrives.
    expectProblem(await move({ from: 'cfg/paper-global.yml', to: 'leak.yml' }), 403, 'read_only', 'body.from');
    expect(await readFile(join(rootOf(), 'config', 'paper-global.yml'), 'utf8')).to.include('the-shared-secret');
    expect(await exists(join(rootOf(), 'leak.yml'))).to.equal(false);
    await rm(join(rootOf(), 'cfg'));
  });

  it('audits each move as server.file.move with both paths, refusals included', async () => {
    const events = (await f.admin.get<AuditEventPage>(`/audit-events?action=server.file.move&targetId=${id}&limit=200`)).body.items;
    expect(events.find((e) => e.details.from === 'notes.txt')).to.deep.include({ outcome: 'SUCCESS' });
    expect(events.find((e) => e.details.from === 'notes.txt')?.details).to.deep.include({ from: 'notes.txt', to: 'renamed.txt' });
    const refused = events.find((e) => e.details.from === 'one.txt' && e.details.to === 'two.txt');
    expect(refused?.outcome).to.not.equal('SUCCESS');
    expect(refused?.details.error).to.equal('conflict');
  });
});
