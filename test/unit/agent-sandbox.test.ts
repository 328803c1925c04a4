import { expect } from 'chai';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../src/agent/errors.js';
import { deletePath, listDirectory, makeDirectory, readFileRange } from '../../src/agent/files/files.js';
import { withPlace } from '../../src/agent/files/beneath.js';
import { pathSegments, type PathAccess } from '../../src/agent/files/sandbox.js';
import { Uploads } from '../../src/agent/files/uploads.js';
import { codeOf } from '../support/agent-error-code.js';

/** Walks to a path and lets go of it: what the files API's operations do first. */
const resolveInRoot = (root: string, path: string, access: PathAccess) => withPlace(root, path, access, async () => undefined);


/** Paths refused before the disk is looked at. */
const refusedText = [
  '', '..', '../', '/', '/etc/passwd', '//etc/passwd', '../x', 'a/../../x', 'a/..', './..', 'a/./../b', '.../..',
  'C:/Windows', 'c:x', '..\\x', 'a\\b', 'nul\u0000byte', 'line\nbreak', 'tab\there', '\u007fdel', 'x'.repeat(4097),
];

describe('agent files sandbox', () => {
  let base: string;
  let root: string;
  let outside: string;
  const never = new AbortController().signal;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-sandbox-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await mkdir(join(root, '.cairn'), { recursive: true });
    await mkdir(join(root, 'world'));
    await mkdir(outside);
    await writeFile(join(outside, 'secret'), 'host');
    // The software lies beside the root; the root's `.cairn` is only where the game's view binds it.
    await mkdir(join(base, 'software'));
    await writeFile(join(base, 'software', 'server.jar'), 'jar');
    await writeFile(join(root, 'world', 'level.dat'), 'level');
    await symlink(outside, join(root, 'out'));
    await symlink(join(outside, 'secret'), join(root, 'secret-link'));
    await symlink('world/level.dat', join(root, 'inside-link'));
    await symlink('.cairn', join(root, 'soft-cairn'));
    await symlink('loop', join(root, 'loop'));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('normalises harmless paths and refuses hostile text', () => {
    expect(pathSegments('.')).to.deep.equal([]);
    expect(pathSegments('./world//level.dat/')).to.deep.equal(['world', 'level.dat']);
    expect(pathSegments('..hidden/...')).to.deep.equal(['..hidden', '...']);
    for (const path of refusedText) expect(() => pathSegments(path), JSON.stringify(path)).to.throw(AgentError).with.property('code', 'INVALID_PATH');
  });

  it('refuses symlinks that lead outside for every operation, and loops', async () => {
    for (const path of ['out/secret', 'out/new', 'out/dir', 'loop/x']) {
      for (const op of [
        () => resolveInRoot(root, path, 'read'),
        () => resolveInRoot(root, path, 'write'),
        () => makeDirectory(root, path),
        () => deletePath(root, path),
        () => new Uploads().chunk({ root, path, uploadId: 'u1', offset: 0, data: Buffer.from('pwned'), last: true }),
      ]) expect(await codeOf(op), path).to.equal('INVALID_PATH');
    }
    expect(await codeOf(() => resolveInRoot(root, 'secret-link', 'read'))).to.equal('INVALID_PATH');
    expect(await codeOf(() => resolveInRoot(root, 'out', 'read'))).to.equal('INVALID_PATH');
    expect(await codeOf(() => listDirectory(root, 'out'))).to.equal('INVALID_PATH');
    expect(await readdir(outside)).to.deep.equal(['secret']);
    expect(await readFile(join(outside, 'secret'), 'utf8')).to.equal('host');
  });

  it('writes act on a final symlink itself, never on its target', async () => {
    await new Uploads().chunk({ root, path: 'secret-link', uploadId: 'u2', offset: 0, data: Buffer.from('replaced'), last: true });
    expect(await readFile(join(root, 'secret-link'), 'utf8')).to.equal('replaced');
    expect(await readFile(join(outside, 'secret'), 'utf8')).to.equal('host');
    await deletePath(root, 'out');
    expect(await readdir(outside)).to.deep.equal(['secret']);
  });

  it('follows symlinks that stay inside the root for reads', async () => {
    const last = await readFileRange(root, 'inside-link', { offset: 0, length: 0, chunkBytes: 1024 }, () => undefined, never);
    expect(last.data.toString()).to.equal('level');
    const names = (await listDirectory(root, '.')).map((e) => `${e.name}:${e.type}`);
    expect(names).to.include.members(['.cairn:DIRECTORY', 'world:DIRECTORY', 'inside-link:FILE', 'soft-cairn:DIRECTORY']);
    expect(names.join()).to.not.match(/out:|secret-link|loop/);
  });

  it('.cairn is read-only, also through a symlink; reads are allowed', async () => {
    for (const path of ['.cairn', '.cairn/server.jar', '.cairn/new', './.cairn/x', 'soft-cairn/x']) {
      expect(await codeOf(() => resolveInRoot(root, path, 'write')), path).to.equal('READ_ONLY');
    }
    expect(await codeOf(() => deletePath(root, '.cairn'))).to.equal('READ_ONLY');
    expect(await codeOf(() => resolveInRoot(root, '.cairn/server.jar', 'read'))).to.equal('OK');
    // What is shown is the software beside the root, never what the game put in its `.cairn`.
    await writeFile(join(root, '.cairn', 'planted.jar'), 'the game\'s');
    expect((await listDirectory(root, '.cairn')).map((e) => e.name)).to.deep.equal(['server.jar']);
  });

  it('an upload appears only when complete; an aborted or oversized one leaves nothing', async () => {
    const uploads = new Uploads();
    await uploads.chunk({ root, path: 'world/a.bin', uploadId: 'a', offset: 0, data: Buffer.from('12'), last: false });
    expect(await readdir(join(root, 'world'))).to.have.members(['level.dat', '.cairn-upload-a']);
    await uploads.discard('a');
    expect(await readdir(join(root, 'world'))).to.deep.equal(['level.dat']);
    expect(await codeOf(() => uploads.chunk({ root, path: 'world/a.bin', uploadId: 'a', offset: 2, data: Buffer.from('3'), last: true }))).to.equal('NOT_FOUND');
    await uploads.chunk({ root, path: 'world/b.bin', uploadId: 'b', offset: 0, data: Buffer.from('12'), last: false });
    expect(await codeOf(() => uploads.chunk({ root, path: 'world/b.bin', uploadId: 'b', offset: 5, data: Buffer.from('3'), last: true }))).to.equal('INVALID_REQUEST');
    expect(await readdir(join(root, 'world'))).to.deep.equal(['level.dat']);
    expect(await codeOf(() => uploads.chunk({ root, path: 'nope/c.bin', uploadId: 'c', offset: 0, data: Buffer.alloc(0), last: false }))).to.equal('NOT_FOUND');
    expect(uploads.active).to.equal(0);
  });

  it('discardAll (the Agent stopping) resolves only once every temporary file is gone, also those of discards already under way', async () => {
    const uploads = new Uploads();
    await uploads.chunk({ root, path: 'world/d.bin', uploadId: 'd', offset: 0, data: Buffer.from('12'), last: false });
    const first = uploads.discard('d');
    await uploads.discardAll();
    expect(await readdir(join(root, 'world'))).to.deep.equal(['level.dat']);
    await first;
  });
});
