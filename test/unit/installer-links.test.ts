import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInRoot } from '../../src/agent/files/root-files.js';
import { Installer, readInstalled } from '../../src/agent/reconciler/installer.js';
import { prepareSoftwareMount } from '../../src/agent/reconciler/software-mount.js';
import type { Template } from '../../src/shared/templates.js';

const jar = Buffer.from('a jar');
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The Controller's side of a fetch: the bytes land 0600, as the real fetcher writes them. */
const fetcherOf = (bytes: Buffer) => ({ fetch: async (_: unknown, dest: string) => writeFile(dest, bytes, { mode: 0o600 }) });
const jarTemplate = (bytes: Buffer, sha256: string) =>
  ({ id: 'paper', install: { source: 'download', file: 'server.jar', artifacts: { '1.20.6': { url: 'x', sha256, size: bytes.length, build: '7' } } } }) as unknown as Template;

describe('installer: the software lives beside the root, where the game cannot reach it', () => {
  let dir: string;
  let root: string;
  let outside: string;
  const software = () => join(dir, 'software');
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-installer-'));
    root = join(dir, 'root');
    outside = join(dir, 'outside');
    await mkdir(root);
    await mkdir(outside);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('a `.cairn` of the game\'s holding links out (the reproduction of issue 38) leads no install outside: the target keeps its bytes', async () => {
    const victim = join(outside, 'victim');
    await writeFile(victim, 'root-owned file outside');
    await mkdir(join(root, '.cairn'));
    await symlink(victim, join(root, '.cairn', 'server.jar'));
    await symlink(victim, join(root, '.cairn', 'installed.json'));
    const marker = await new Installer(join(dir, 'cache'), fetcherOf(jar)).install(root, jarTemplate(jar, sha256Of(jar)), '1.20.6');
    expect(await readFile(victim, 'utf8')).to.equal('root-owned file outside');
    expect(await readFile(join(software(), 'server.jar'))).to.deep.equal(jar);
    expect(await readInstalled(root)).to.deep.equal(marker);
    // The mount point is the Agent's own, empty; what the game had there is gone from its root.
    expect(await readdir(join(root, '.cairn'))).to.deep.equal([]);
    expect((await lstat(join(root, '.cairn'))).isSymbolicLink()).to.equal(false);
  });

  it('a `.cairn` the game replaced with a link, or a FIFO, is moved out without following or opening it', async () => {
    await writeFile(join(outside, 'keep'), 'x');
    await symlink(outside, join(root, '.cairn'));
    expect(await prepareSoftwareMount(root)).to.equal(true);
    expect((await lstat(join(root, '.cairn'))).isDirectory()).to.equal(true);
    expect(await readdir(outside)).to.deep.equal(['keep']);
    await rm(join(root, '.cairn'), { recursive: true });
    execFileSync('mkfifo', [join(root, '.cairn')]);
    expect(await prepareSoftwareMount(root)).to.equal(true);
    expect((await lstat(join(root, '.cairn'))).isDirectory()).to.equal(true);
    expect(await prepareSoftwareMount(root), 'an empty directory of the Agent\'s stays').to.equal(false);
  });

  it('a FIFO the game put where the marker once was does not block the probe', async () => {
    await mkdir(join(root, '.cairn'));
    execFileSync('mkfifo', [join(root, '.cairn', 'installed.json')]);
    expect(await readInstalled(root)).to.equal(undefined);
  });

  it('an earlier version\'s software in the root is moved out; its network marker is kept beside the root', async () => {
    await mkdir(join(root, '.cairn'));
    await writeFile(join(root, '.cairn', 'server.jar'), 'old');
    await writeFile(join(root, '.cairn', 'network-member'), '');
    expect(await prepareSoftwareMount(root)).to.equal(true);
    expect(await readdir(join(root, '.cairn'))).to.deep.equal([]);
    expect((await stat(join(dir, 'network-member'))).isFile()).to.equal(true);
    expect((await readdir(dir)).filter((n) => n.startsWith('.cairn-moved-'))).to.deep.equal([]);
  });

  it('installed software is readable by every uid and writable by none but the Agent, though its cache copy is 0600', async () => {
    await new Installer(join(dir, 'cache'), fetcherOf(jar)).install(root, jarTemplate(jar, sha256Of(jar)), '1.20.6');
    expect((await stat(join(dir, 'cache', sha256Of(jar)))).mode & 0o777).to.equal(0o600);
    expect((await stat(join(software(), 'server.jar'))).mode & 0o777).to.equal(0o644);
    expect((await stat(join(software(), 'installed.json'))).mode & 0o777).to.equal(0o644);
    expect((await stat(software())).mode & 0o777).to.equal(0o755);
  });

  it('a seed file\'s directory swapped for a link out is refused; nothing lands outside', async () => {
    await symlink(outside, join(root, 'config'));
    const refused = await createInRoot(root, 'config/seed.txt', 'seed').then(() => false, () => true);
    expect(refused).to.equal(true);
    expect(await readdir(outside)).to.deep.equal([]);
  });

  it('a seed file is written when absent (its directories made), and never overwrites the game\'s or follows a link by its name', async () => {
    await createInRoot(root, 'config/deep/seed.txt', 'seed');
    expect(await readFile(join(root, 'config', 'deep', 'seed.txt'), 'utf8')).to.equal('seed');
    await writeFile(join(root, 'mine.txt'), 'the game\'s');
    await createInRoot(root, 'mine.txt', 'seed');
    expect(await readFile(join(root, 'mine.txt'), 'utf8')).to.equal('the game\'s');
    await symlink(join(outside, 'planted'), join(root, 'linked.txt'));
    await createInRoot(root, 'linked.txt', 'seed');
    expect(await readdir(outside)).to.deep.equal([]);
  });
});
