import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Installer } from '../../src/agent/reconciler/installer.js';
import { encodeArtifactSet, parseArtifactSet, type ArtifactSetEntry } from '../../src/shared/artifact-set.js';
import type { Template } from '../../src/shared/templates.js';

/** What a promise was rejected with; fails the test when it was not. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}
const exists = (path: string) => stat(path).then(() => true, () => false);

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** What the Controller holds by sha256: the fetcher answers from it, as the link does. */
class Blobs {
  readonly bytes = new Map<string, Buffer>();
  readonly fetched: string[] = [];
  add(content: string | Buffer): { sha256: string; size: number } {
    const b = Buffer.from(content);
    this.bytes.set(sha256Of(b), b);
    return { sha256: sha256Of(b), size: b.length };
  }
  set(files: Record<string, string>, executable: string[] = []): { sha256: string; size: number } {
    const entries: ArtifactSetEntry[] = Object.entries(files).map(([path, content]) => ({ path, ...this.add(content), ...(executable.includes(path) ? { executable: true } : {}) }));
    const manifest = encodeArtifactSet(entries);
    this.add(manifest.text);
    return { sha256: manifest.sha256, size: manifest.size };
  }
  readonly fetcher = {
    fetch: async (key: { sha256?: string }, dest: string) => {
      const b = this.bytes.get(key.sha256!);
      if (!b) throw new Error(`no artifact ${key.sha256}`);
      this.fetched.push(key.sha256!);
      await writeFile(dest, b, { mode: 0o600 });
    },
  };
}

const treeTemplate = (tree: { sha256: string; size: number }, pack?: { sha256: string; size: number }) =>
  ({ id: 'neoforge', install: { source: 'tree', tree, build: '21.4.136' }, ...(pack ? { pack } : {}) }) as unknown as Template;

describe('installer: file sets (an installer\'s output under .cairn, a modpack\'s files in the root)', () => {
  let dir: string;
  let root: string;
  let blobs: Blobs;
  const software = () => join(dir, 'software');
  const install = (template: Template) => new Installer(join(dir, 'cache'), blobs.fetcher).install(root, template, '1.21.4');
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-sets-'));
    root = join(dir, 'root');
    await mkdir(root);
    blobs = new Blobs();
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a tree lands in the software directory at its paths, executables 0755; a new tree removes the old one\'s files it lacks', async () => {
    const first = blobs.set({ 'libraries/a/a-1.jar': 'A1', 'libraries/shared.jar': 'S', 'run.sh': '#!/bin/sh\n' }, ['run.sh']);
    const marker = await install(treeTemplate(first));
    expect(marker.build).to.equal('21.4.136');
    expect(await readFile(join(software(), 'libraries/a/a-1.jar'), 'utf8')).to.equal('A1');
    expect((await stat(join(software(), 'run.sh'))).mode & 0o777).to.equal(0o755);
    expect((await stat(join(software(), 'libraries/shared.jar'))).mode & 0o777).to.equal(0o644);
    const second = blobs.set({ 'libraries/a/a-2.jar': 'A2', 'libraries/shared.jar': 'S' });
    blobs.fetched.length = 0;
    await install(treeTemplate(second));
    expect(await readFile(join(software(), 'libraries/a/a-2.jar'), 'utf8')).to.equal('A2');
    expect(await exists(join(software(), 'libraries/a/a-1.jar'))).to.equal(false);
    expect(blobs.fetched, 'a file the cache holds is not fetched again').to.not.include(sha256Of('S'));
  });

  it('a pack\'s files go into the root; the next pack version removes files the last one placed and dropped, and keeps the world and the operator\'s', async () => {
    const tree = blobs.set({ 'server.jar': 'J' });
    await mkdir(join(root, 'world'));
    await writeFile(join(root, 'world', 'level.dat'), 'world');
    await mkdir(join(root, 'mods'));
    await writeFile(join(root, 'mods', 'mine.jar'), 'operator');
    await install(treeTemplate(tree, blobs.set({ 'mods/a-1.jar': 'A1', 'mods/b.jar': 'B', 'config/b.toml': 'x=1' })));
    expect(await readFile(join(root, 'mods/a-1.jar'), 'utf8')).to.equal('A1');
    expect(await readFile(join(root, 'config/b.toml'), 'utf8')).to.equal('x=1');
    await install(treeTemplate(tree, blobs.set({ 'mods/a-2.jar': 'A2', 'config/b.toml': 'x=2' })));
    expect(await readFile(join(root, 'mods/a-2.jar'), 'utf8')).to.equal('A2');
    expect(await readFile(join(root, 'config/b.toml'), 'utf8')).to.equal('x=2');
    for (const gone of ['mods/a-1.jar', 'mods/b.jar']) expect(await exists(join(root, gone)), gone).to.equal(false);
    expect(await readFile(join(root, 'world', 'level.dat'), 'utf8')).to.equal('world');
    expect(await readFile(join(root, 'mods', 'mine.jar'), 'utf8')).to.equal('operator');
    // Back to the loader alone: the pack's files go, the operator's stay.
    await install(treeTemplate(tree));
    expect(await exists(join(root, 'mods/a-2.jar'))).to.equal(false);
    expect(await readFile(join(root, 'mods', 'mine.jar'), 'utf8')).to.equal('operator');
  });

  it('a pack file is never written through a link the game left in the root', async () => {
    const outside = join(dir, 'outside');
    await mkdir(outside);
    await symlink(outside, join(root, 'mods'));
    expect((await rejection(install(treeTemplate(blobs.set({ 'server.jar': 'J' }), blobs.set({ 'mods/a.jar': 'A' }))))).message).to.match(/mods|link|symbolic/i);
    expect(await exists(join(outside, 'a.jar'))).to.equal(false);
  });

  it('a manifest naming a path out of its directory is refused before anything is written', async () => {
    const bad = blobs.add(JSON.stringify({ files: [{ path: '../escape', ...blobs.add('x') }] }));
    expect((await rejection(install(treeTemplate(bad)))).message).to.match(/escape.*segments are not allowed/);
    for (const path of ['/etc/passwd', 'a/../../b', '.cairn/x', 'a\\b', '', 'a//b']) {
      expect(parseArtifactSet(JSON.stringify({ files: [{ path, ...blobs.add('x') }] })), path).to.have.property('problem');
    }
    expect(parseArtifactSet(JSON.stringify({ files: [{ path: 'a', ...blobs.add('x') }, { path: 'a', ...blobs.add('y') }] }))).to.deep.equal({ problem: '"a" is listed twice' });
  });
});
