import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { zipOf, zipWithRenamedEntry } from '../support/archive-builders.js';
import type { CreatedApiToken, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { runBuilt } from '../support/run-program.js';

/** Every file below `dir`, by its `/`-separated path, with its bytes. */
async function treeOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'), await readFile(join(entry.parentPath, entry.name)));
  }
  return files;
}

/**
 * `cairn cp` with folders, `cairn extract` and `cairn compress` in the built `cairn` (`npm run build`
 * first) against a Controller and a real Agent: what the CLI sends is read back through the API.
 */
describe('cairn cp with folders, extract and compress: the built CLI against a Controller and an Agent', function () {
  this.timeout(120_000);
  let f: Fleet;
  let id: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let token: string;
  const cairn = (args: string[]) => runBuilt('cli', args, { env });
  const ok = async (args: string[]) => {
    const res = await cairn(args);
    expect(res.code, `cairn ${args.join(' ')}\n${res.stderr}`).to.equal(0);
    return res.stdout;
  };
  /** A file of the server through GET files/content, as bytes. */
  const remote = async (path: string) => {
    const res = await fetch(`${f.t.baseUrl}/api/v1/servers/${id}/files/content?path=${encodeURIComponent(path)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, `GET ${path}`).to.equal(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const put = async (path: string, bytes: Buffer) =>
    expect((await f.admin.request('PUT', `/servers/${id}/files/content?path=${encodeURIComponent(path)}`, { rawBody: bytes })).status).to.equal(204);
  /** A world of nested files: text, random bytes of a few MiB, an empty file and an empty directory. */
  const world = new Map<string, Buffer>([
    ['level.dat', randomBytes(4096)],
    ['region/r.0.0.mca', randomBytes(3 * 1024 * 1024 + 17)],
    ['region/r.0.1.mca', randomBytes(70_000)],
    ['data/raids/overworld.dat', Buffer.from('raids\n')],
    ['data/empty.json', Buffer.alloc(0)],
    ['playerdata/ünïcode name.dat', Buffer.from('ü')],
  ]);
  const worldBytes = [...world.values()].reduce((sum, b) => sum + b.length, 0);

  before(async () => {
    f = await startFleet();
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    token = (await f.admin.post<CreatedApiToken>('/me/tokens', { name: 'cli-files' })).body.token;
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-files-'));
    env = { CAIRN_URL: f.t.baseUrl, CAIRN_TOKEN: token, CAIRN_CREDENTIALS: join(home, 'credentials.json') };
    for (const [path, bytes] of world) {
      await mkdir(join(home, 'world', path, '..'), { recursive: true });
      await writeFile(join(home, 'world', path), bytes);
    }
    await mkdir(join(home, 'world/datapacks'));
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('uploads a folder of nested files (and empty directories), read back through the API byte for byte; a link is left out and named', async () => {
    await symlink('/etc', join(home, 'world/etc-link'));
    const res = await cairn(['cp', join(home, 'world'), 'lobby:']);
    await rm(join(home, 'world/etc-link'));
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.equal(`copied ${world.size} files, ${worldBytes} bytes to lobby:world\n`);
    expect(res.stderr).to.equal('left out (links and special files are not copied): etc-link\n');
    for (const [path, bytes] of world) expect((await remote(`world/${path}`)).equals(bytes), path).to.equal(true);
    const listed = (await f.admin.get<{ items: { name: string }[] }>(`/servers/${id}/files?path=world/datapacks`));
    expect(listed.status, listed.text).to.equal(200);
    // Into a path that does not exist the folder is made under that name; into an existing directory it goes inside, as cp -r does.
    expect(await ok(['cp', join(home, 'world'), 'lobby:imported'])).to.equal(`copied ${world.size} files, ${worldBytes} bytes to lobby:imported\n`);
    expect((await remote('imported/region/r.0.1.mca')).equals(world.get('region/r.0.1.mca')!)).to.equal(true);
    expect(await ok(['cp', join(home, 'world'), 'lobby:imported'])).to.equal(`copied ${world.size} files, ${worldBytes} bytes to lobby:imported/world\n`);
  });

  it('a refused file stops the upload naming it, with how far it got', async () => {
    await mkdir(join(home, 'bad'));
    await writeFile(join(home, 'bad/a.txt'), 'fine');
    await writeFile(join(home, 'bad/back\\slash.txt'), 'refused');
    const res = await cairn(['cp', join(home, 'bad'), 'lobby:']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/^stopped after copying [01] of 2 files \(\d+ bytes\) to lobby:bad$/m);
    expect(res.stderr).to.match(/^Error from server \(invalid_request\): lobby:bad\/back\\slash\.txt: /m);
    expect(res.stdout).to.equal('');
  });

  it('downloads a folder (GET files/archive) and unpacks it byte for byte: as a new path, into a directory, and as a zip on stdout', async () => {
    const fresh = join(home, 'down');
    expect(await ok(['cp', 'lobby:world', fresh])).to.equal(`copied ${world.size} files, ${worldBytes} bytes from lobby:world to ${fresh}\n`);
    const back = await treeOf(fresh);
    expect([...back.keys()].sort()).to.deep.equal([...world.keys()].sort());
    for (const [path, bytes] of world) expect(back.get(path)!.equals(bytes), path).to.equal(true);
    expect(await readdir(join(fresh, 'datapacks'))).to.deep.equal([]);
    expect(await ok(['cp', 'lobby:world/region', fresh])).to.equal(`copied 2 files, ${world.get('region/r.0.0.mca')!.length + world.get('region/r.0.1.mca')!.length} bytes from lobby:world/region to ${join(fresh, 'region')}\n`);
    expect(await readdir(home)).to.not.include.members(['.down.cairn-partial.zip']);
    expect((await ok(['cp', 'lobby:world', '-'])).startsWith('PK\u0003\u0004')).to.equal(true);
    await mkdir(join(home, 'blocked'));
    await writeFile(join(home, 'blocked/world'), 'a file where the folder would go');
    const blocked = await cairn(['cp', 'lobby:world', join(home, 'blocked')]);
    expect(blocked.code).to.equal(1);
    expect(blocked.stderr).to.match(/^error: E[A-Z]+: .*, mkdir '.*blocked\/world'\n$/);
    expect(await readdir(join(home, 'blocked'))).to.deep.equal(['world']);
    const missing = await cairn(['cp', 'lobby:nowhere/', join(home, 'none')]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^Error from server \(not_found\)/);
  });

  it('extract waits for the job and prints what it wrote; compress writes an archive that extracts to the same files', async () => {
    await put('pack.zip', await zipOf({ 'config/': '', 'config/a.yml': 'a: 1\n', 'mods/x.jar': 'jar' }));
    expect(await ok(['extract', 'lobby', 'pack.zip', '--into', 'unpacked'])).to.equal('extracted lobby:pack.zip into lobby:unpacked: 3 entries, 8 bytes\n');
    expect((await remote('unpacked/config/a.yml')).toString()).to.equal('a: 1\n');
    expect(await ok(['compress', 'lobby', 'world', 'unpacked/mods', '--into', 'both.tar.gz'])).to.match(/^compressed lobby:world, lobby:unpacked\/mods into lobby:both\.tar\.gz: \d+ entries, \d+ bytes\n$/);
    const job = JSON.parse(await ok(['extract', 'lobby', 'both.tar.gz', '--into', 'again', '-o', 'json'])) as { state: string; kind: string };
    expect(job).to.include({ state: 'SUCCEEDED', kind: 'EXTRACT' });
    expect((await remote('again/world/region/r.0.0.mca')).equals(world.get('region/r.0.0.mca')!)).to.equal(true);
    expect((await remote('again/mods/x.jar')).toString()).to.equal('jar');
  });

  it('a hostile archive\'s extract exits 1 with the job\'s reason naming the entry; API refusals and usage errors are what they are', async () => {
    await put('evil.zip', await zipWithRenamedEntry('aa/bb/etc/passwd', '../../etc/passwd'));
    const evil = await cairn(['extract', 'lobby', 'evil.zip']);
    expect(evil.code).to.equal(1);
    expect(evil.stderr).to.match(/^error: extract of lobby:evil\.zip failed: .*\.\.\/\.\.\/etc\/passwd/);
    const unknown = await cairn(['extract', 'lobby', 'notes.txt']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/^Error from server \(invalid_request\): .*body\.path/);
    const taken = await cairn(['compress', 'lobby', 'world', '--into', 'both.tar.gz']);
    expect(taken.code).to.equal(1);
    expect(taken.stderr).to.match(/both\.tar\.gz/);
    const noInto = await cairn(['compress', 'lobby', 'world']);
    expect(noInto.code).to.equal(2);
    expect(noInto.stderr).to.match(/--into <archive>/);
  });
});
