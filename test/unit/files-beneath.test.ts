import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../src/agent/errors.js';
import { deletePath, listDirectory, makeDirectory, readFileRange } from '../../src/agent/files/files.js';
import { ServerProperties } from '../../src/agent/files/properties.js';
import { Uploads } from '../../src/agent/files/uploads.js';
import { PluginPlacer, PluginPlacementError } from '../../src/agent/plugins/plugin-placer.js';
import { writeManagedConfig } from '../../src/agent/reconciler/managed-config.js';
import type { DesiredPlugin } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { PlaceholderValues, Template } from '../../src/shared/templates.js';
import { codeOf } from '../support/agent-error-code.js';

const never = new AbortController().signal;
const readText = async (root: string, path: string) =>
  (await readFileRange(root, path, { offset: 0, length: 0, chunkBytes: 1024 }, () => undefined, never)).data.toString();
const isRoot = process.getuid?.() === 0;
const game = { uid: 200123, gid: 200123 };

/*
 * Swaps two names atomically (renameat2 RENAME_EXCHANGE) as fast as it can, as a hostile game
 * would: one name is a real directory, the other a symlink leading out of the root.
 */
const swapper = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
print("swapping", flush=True)
while True:
    libc.renameat2(-100, a, -100, b, 2)
`;

describe('Agent file operations walk by held directory fds (containment)', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-beneath-'));
    root = join(base, 'root');
    outside = join(base, 'outside');
    await mkdir(join(root, '.cairn'), { recursive: true });
    await mkdir(join(root, 'world', 'region'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(outside, 'f'), 'canary');
    await writeFile(join(root, 'world', 'region', 'r.0.0.mca'), 'region');
    await writeFile(join(root, '.cairn', 'server.jar'), 'jar');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  describe('the rename race', () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      child?.kill('SIGKILL');
      child = undefined;
    });

    it('a directory swapped for a symlink out in a tight loop never leads a read, listing or write outside', async function () {
      this.timeout(60_000);
      await mkdir(join(root, 'd'));
      await writeFile(join(root, 'd', 'f'), 'inside');
      await writeFile(join(outside, 'outside-only'), 'canary');
      await symlink(outside, join(root, 'd.link'));
      child = spawn('python3', ['-c', swapper, join(root, 'd'), join(root, 'd.link')], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child!.once('error', reject);
        child!.stdout!.once('data', () => resolve());
      });

      const reads = { inside: 0, canary: 0, refused: {} as Record<string, number> };
      const lists = { inside: 0, escaped: 0, refused: 0 };
      const writes = { ok: 0, refused: 0 };
      const refuse = (e: unknown, counts: Record<string, number>) => {
        if (!(e instanceof AgentError)) throw e;
        counts[e.code] = (counts[e.code] ?? 0) + 1;
      };
      const uploads = new Uploads();
      for (let i = 0; i < 400; i++) {
        try {
          if ((await readText(root, 'd/f')) === 'canary') reads.canary++;
          else reads.inside++;
        } catch (e) {
          refuse(e, reads.refused);
        }
        try {
          const names = (await listDirectory(root, 'd')).map((e) => e.name);
          if (names.includes('outside-only')) lists.escaped++;
          else lists.inside++;
        } catch (e) {
          refuse(e, {});
          lists.refused++;
        }
        for (const write of [
          () => uploads.chunk({ root, path: `d/new-${i}`, uploadId: `u${i}`, offset: 0, data: Buffer.from('pwned'), last: true }),
          () => makeDirectory(root, `d/x-${i}`),
        ]) {
          try {
            await write();
            writes.ok++;
          } catch (e) {
            refuse(e, {});
            writes.refused++;
          }
        }
      }
      child.kill('SIGKILL');
      const landedOutside = (await readdir(outside)).filter((n) => n !== 'f' && n !== 'outside-only');
      console.log(`      race: reads ${JSON.stringify(reads)}, listings ${JSON.stringify(lists)}, writes ${JSON.stringify(writes)}, landed outside ${landedOutside.length}`);

      expect(reads.canary, 'reads that returned the host file').to.equal(0);
      expect(lists.escaped, 'listings of the outside directory').to.equal(0);
      expect(landedOutside, 'writes that landed outside').to.deep.equal([]);
      expect(await readFile(join(outside, 'f'), 'utf8')).to.equal('canary');
      // Both outcomes seen: the swap really raced the reads.
      expect(reads.inside, 'reads that succeeded').to.be.greaterThan(0);
      expect(Object.values(reads.refused).reduce((a, b) => a + b, 0), 'reads refused').to.be.greaterThan(0);
      expect(Object.keys(reads.refused)).to.satisfy((codes: string[]) => codes.every((c) => ['INVALID_PATH', 'NOT_FOUND', 'NOT_A_DIRECTORY'].includes(c)));
    });
  });

  describe('the walk', () => {
    it('follows a symlink that stays inside the root, relative or absolute', async () => {
      await symlink('world/region', join(root, 'rel'));
      await symlink('../world/region/r.0.0.mca', join(root, 'world', 'up'));
      await symlink(join(root, 'world', 'region', 'r.0.0.mca'), join(root, 'abs'));
      await symlink('/region', join(root, 'world', 'rooted'));
      expect(await readText(root, 'rel/r.0.0.mca')).to.equal('region');
      expect(await readText(root, 'world/up')).to.equal('region');
      expect(await readText(root, 'abs')).to.equal('region');
      expect((await listDirectory(root, 'rel')).map((e) => e.name)).to.deep.equal(['r.0.0.mca']);
      // An absolute target outside the root's own path is the host's, not the game's: refused.
      expect(await codeOf(() => readText(root, 'world/rooted'))).to.equal('INVALID_PATH');
    });

    it('refuses symlinks out of the root, `..` and loops with INVALID_PATH', async () => {
      await symlink(outside, join(root, 'out'));
      await symlink('../../outside', join(root, 'world', 'climb'));
      await symlink(join(outside, 'f'), join(root, 'world', 'file-out'));
      await symlink('a', join(root, 'b'));
      await symlink('b', join(root, 'a'));
      for (const path of ['out/f', 'world/climb/f', 'world/file-out', 'a', 'a/x', '../outside/f', 'world/../../outside/f']) {
        expect(await codeOf(() => readText(root, path)), path).to.equal('INVALID_PATH');
      }
      expect(await codeOf(() => listDirectory(root, 'world/climb'))).to.equal('INVALID_PATH');
      expect(await codeOf(() => makeDirectory(root, 'world/climb/x'))).to.equal('INVALID_PATH');
      expect(await readdir(outside)).to.deep.equal(['f']);
    });

    it('refuses a FIFO at once with NOT_A_FILE', async function () {
      execFileSync('mkfifo', [join(root, 'world', 'pipe')]);
      await symlink('world/pipe', join(root, 'pipe-link'));
      const started = Date.now();
      expect(await codeOf(() => readText(root, 'world/pipe'))).to.equal('NOT_A_FILE');
      expect(await codeOf(() => readText(root, 'pipe-link'))).to.equal('NOT_A_FILE');
      expect(await codeOf(() => new ServerProperties().get(join(root, 'world')).then(() => undefined))).to.equal('OK');
      await rm(join(root, 'world', 'pipe'));
      execFileSync('mkfifo', [join(root, 'server.properties')]);
      expect(await codeOf(() => new ServerProperties().get(root))).to.equal('INVALID_PROPERTIES');
      expect(Date.now() - started).to.be.lessThan(2000);
    });

    it('.cairn is read-only, also through a symlink on the way', async () => {
      await symlink('.cairn', join(root, 'soft'));
      await symlink('../.cairn', join(root, 'world', 'deeper'));
      for (const path of ['soft/x', 'world/deeper/x', 'world/deeper/server.jar']) {
        expect(await codeOf(() => makeDirectory(root, path)), path).to.equal('READ_ONLY');
        expect(await codeOf(() => new Uploads().chunk({ root, path, uploadId: 'r', offset: 0, data: Buffer.from('x'), last: true })), path).to.equal('READ_ONLY');
      }
      expect(await codeOf(() => deletePath(root, 'soft/server.jar'))).to.equal('READ_ONLY');
      expect(await readText(root, 'soft/server.jar')).to.equal('jar');
      expect(await readdir(join(root, '.cairn'))).to.deep.equal(['server.jar']);
    });

    it('deletes a directory tree without following the symlinks in it', async () => {
      await mkdir(join(root, 'world', 'links'));
      await symlink(outside, join(root, 'world', 'links', 'to-outside'));
      await symlink(join(outside, 'f'), join(root, 'world', 'links', 'to-file'));
      await deletePath(root, 'world');
      expect(await readdir(root)).to.deep.equal(['.cairn']);
      expect(await readFile(join(outside, 'f'), 'utf8')).to.equal('canary');
    });

    (isRoot ? it : it.skip)('what it creates belongs to the server\'s identity', async () => {
      await makeDirectory(root, 'world/made', game);
      await new Uploads().chunk({ root, path: 'world/made/up.txt', uploadId: 'o', offset: 0, data: Buffer.from('x'), last: true, owner: game });
      await new ServerProperties().patch('s1', root, { motd: 'hi' }, [], game);
      for (const path of ['world/made', 'world/made/up.txt', 'server.properties']) {
        const st = await lstat(join(root, path));
        expect([st.uid, st.gid], path).to.deep.equal([game.uid, game.gid]);
      }
      await makeDirectory(root, 'world/mine');
      expect((await lstat(join(root, 'world', 'mine'))).uid).to.equal(0);
    });
  });

  describe('plugin placement and managed config', () => {
    const bytes = Buffer.from('a jar');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const plugin: DesiredPlugin = { installationId: 'i', fileName: 'p.jar', sha256, sizeBytes: bytes.length, pluginId: 't:p' };
    const placer = () => new PluginPlacer(join(base, 'cache'), { fetch: async (_want: unknown, dest: string) => writeFile(dest, bytes) }, silentLogger);
    const template = { config: { file: 'config/server.properties', format: 'properties', managed: { 'server-port': '40123' } } } as unknown as Template;

    it('plugins/ swapped for a symlink out: the start is refused and nothing is written outside', async () => {
      await symlink(outside, join(root, 'plugins'));
      let error: unknown;
      await placer().place([plugin], root).catch((e: unknown) => { error = e; });
      expect(error).to.be.instanceOf(PluginPlacementError);
      expect(await readdir(outside)).to.deep.equal(['f']);
    });

    it('plugins/ as a symlink inside the root is used; a fresh one is owned by the identity', async () => {
      await symlink('world', join(root, 'plugins'));
      await placer().place([plugin], root);
      expect(await readFile(join(root, 'world', 'p.jar'))).to.deep.equal(bytes);
      await rm(join(root, 'plugins'));
      if (isRoot) {
        await placer().place([plugin], root, game);
        for (const path of ['plugins', 'plugins/p.jar']) expect((await lstat(join(root, path))).uid, path).to.equal(game.uid);
      }
    });

    it('config/ swapped for a symlink out: managed config is refused and nothing is written outside', async () => {
      await symlink(outside, join(root, 'config'));
      await writeFile(join(outside, 'server.properties'), 'motd=host\n');
      expect(await codeOf(() => writeManagedConfig(template, {} as PlaceholderValues, root, null))).to.equal('INVALID_PATH');
      expect(await readdir(outside)).to.deep.equal(['f', 'server.properties']);
      expect(await readFile(join(outside, 'server.properties'), 'utf8')).to.equal('motd=host\n');
    });

    it('managed config writes through a real directory, replacing a symlinked file rather than writing through it', async () => {
      await mkdir(join(root, 'config'));
      await symlink(join(outside, 'f'), join(root, 'config', 'server.properties'));
      await writeManagedConfig(template, {} as PlaceholderValues, root, null, {}, isRoot ? game : null);
      expect(await readFile(join(root, 'config', 'server.properties'), 'utf8')).to.contain('server-port=40123');
      expect(await readFile(join(outside, 'f'), 'utf8')).to.equal('canary');
      if (isRoot) expect((await lstat(join(root, 'config', 'server.properties'))).uid).to.equal(game.uid);
    });
  });
});
