import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, cp, lstat, stat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { wasCommitted } from '../../src/agent/transfers/stage-commits.js';
import { Stages, stagesDir, type StageDeps } from '../../src/agent/transfers/stages.js';
import { serverRoot } from '../../src/agent/reconciler/server-paths.js';
import { silentLogger } from '../../src/shared/logger.js';

const serverId = '0190a5c4-0000-7000-8000-0000000000c1';
const stageId = 'crash-stage';
const child = join(import.meta.dirname, '../support/stage-commit-child.ts');
/** Top-level entries on each side; half the names are on both, so a mix of old and new is visible. */
const perSide = 3000;

async function writeMany(dir: string, count: number, file: (i: number) => [string, string]): Promise<void> {
  for (let from = 0; from < count; from += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - from) }, (_, k) => writeFile(join(dir, file(from + k)[0]), file(from + k)[1])));
  }
}

async function oldTree(dir: string): Promise<void> {
  await mkdir(join(dir, '.cairn'), { recursive: true });
  await writeFile(join(dir, '.cairn', 'installed.json'), '{"template":"simcraft"}');
  await mkdir(join(dir, 'world', 'region'), { recursive: true });
  await writeFile(join(dir, 'world', 'region', 'r.0.0.mca'), 'old region');
  await symlink('/etc', join(dir, 'outside'));
  await writeMany(dir, perSide / 2, (i) => [`shared-${i}`, `old ${i}`]);
  await writeMany(dir, perSide / 2 - 2, (i) => [`old-${i}`, `old only ${i}`]);
}

async function newTree(dir: string): Promise<void> {
  await mkdir(join(dir, 'world', 'region'), { recursive: true });
  await writeFile(join(dir, 'world', 'region', 'r.0.0.mca'), 'new region');
  await writeFile(join(dir, 'world', 'level.dat'), 'new level');
  await writeMany(dir, perSide / 2, (i) => [`shared-${i}`, `new ${i}`]);
  await writeMany(dir, perSide / 2 - 2, (i) => [`new-${i}`, `new only ${i}`]);
}

/** Every entry under `dir` (type, path, content or link target), as one hash. */
async function treeHash(dir: string): Promise<string> {
  const lines: string[] = [];
  const walk = async (rel: string) => {
    for (const name of (await readdir(join(dir, rel))).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const info = await lstat(join(dir, path));
      if (info.isSymbolicLink()) lines.push(`L ${path} ${await readlink(join(dir, path))}`);
      else if (info.isDirectory()) {
        lines.push(`D ${path}`);
        await walk(path);
      } else lines.push(`F ${path} ${createHash('sha256').update(await readFile(join(dir, path))).digest('hex')}`);
    }
  };
  await walk('');
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** Starts the commit in a child process and SIGKILLs it once it printed `moved <killAt>` (paused there when `pause`). */
function commitKilledAt(dataDir: string, killAt: number, pause: boolean): Promise<{ killed: boolean }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, dataDir, stageId, serverId], {
    env: { ...process.env, ...(pause ? { CAIRN_PAUSE_AT: String(killAt) } : {}) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let killed = false;
  createInterface({ input: proc.stdout }).on('line', (line) => {
    if (line === `moved ${killAt}`) killed = proc.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    // A child that never reaches its point (or whose line never comes) must not outlive the test.
    const deadline = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`the commit child did not print "moved ${killAt}" within 90 s`));
    }, 90_000);
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      clearTimeout(deadline);
      if (signal === 'SIGKILL' || code === 0) resolve({ killed });
      else reject(new Error(`the commit child exited with ${code ?? signal}`));
    });
  });
}

/** tmpfs when there is one: thousands of files per case are quick to make there, and renames behave alike. */
const scratchBase = () => stat('/dev/shm').then((s) => (s.isDirectory() ? '/dev/shm' : tmpdir()), () => tmpdir());

describe('agent: a restore commit killed midway (SIGKILL at several points)', function () {
  this.timeout(120_000);
  let dir = '';
  const temp = () => dir;
  beforeEach(async () => {
    dir = await mkdtemp(join(await scratchBase(), 'cairn-commit-crash-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  let expected: { old: string; new: string };
  let oldCount: number;
  let newCount: number;

  before(async () => {
    const scratch = await mkdtemp(join(await scratchBase(), 'cairn-commit-ref-'));
    await oldTree(join(scratch, 'old'));
    await newTree(join(scratch, 'new'));
    await cp(join(scratch, 'old', '.cairn'), join(scratch, 'new', '.cairn'), { recursive: true });
    expected = { old: await treeHash(join(scratch, 'old')), new: await treeHash(join(scratch, 'new')) };
    oldCount = (await readdir(join(scratch, 'old'))).length - 1;
    newCount = (await readdir(join(scratch, 'new'))).length - 1;
    await rm(scratch, { recursive: true, force: true });
  });

  const prepare = async () => {
    const dataDir = temp();
    await oldTree(serverRoot(dataDir, serverId));
    await newTree(join(stagesDir(dataDir), stageId, 'files'));
    return dataDir;
  };
  /** What the Agent's start does first: Stages.open (nothing else is used before a request). */
  const agentStart = (dataDir: string) => Stages.open({ dataDir, logger: silentLogger } as StageDeps);

  const points: [string, () => number][] = [
    ['the first rename', () => 1],
    ['half the old entries out', () => oldCount / 2],
    ['every old entry out', () => oldCount],
    ['the first new entry in', () => oldCount + 1],
    ['half the new entries in', () => oldCount + Math.floor(newCount / 2)],
    ['the last rename', () => oldCount + newCount],
  ];
  for (const [at, killAt] of points) {
    it(`killed after ${at}: the next start finishes the swap; the root is the new tree byte for byte`, async () => {
      const dataDir = await prepare();
      expect((await commitKilledAt(dataDir, killAt(), true)).killed).to.equal(true);
      const cut = await treeHash(serverRoot(dataDir, serverId));
      if (killAt() < oldCount + newCount) expect(cut).to.not.be.oneOf([expected.old, expected.new]);
      expect(await wasCommitted(dataDir, stageId)).to.equal(false);
      await agentStart(dataDir);
      expect(await treeHash(serverRoot(dataDir, serverId))).to.equal(expected.new);
      expect(await wasCommitted(dataDir, stageId)).to.equal(true);
      expect(await access(stagesDir(dataDir)).then(() => 'kept', () => 'removed')).to.equal('removed');
    });
  }

  it('killed while running free: the tree after the next start is the old one or the new one, never a mix', async () => {
    const dataDir = await prepare();
    await commitKilledAt(dataDir, 2000, false);
    await agentStart(dataDir);
    const after = await treeHash(serverRoot(dataDir, serverId));
    expect(after).to.be.oneOf([expected.old, expected.new]);
    expect(await wasCommitted(dataDir, stageId)).to.equal(after === expected.new);
  });

  it('a commit that completed is not redone at the next start (its journal is gone), and a stage never committed leaves the root as it was', async () => {
    const dataDir = await prepare();
    await commitKilledAt(dataDir, -1, false);
    expect(await treeHash(serverRoot(dataDir, serverId))).to.equal(expected.new);
    await agentStart(dataDir);
    expect(await treeHash(serverRoot(dataDir, serverId))).to.equal(expected.new);

    const other = join(temp(), 'other');
    await oldTree(serverRoot(other, serverId));
    await newTree(join(stagesDir(other), stageId, 'files'));
    await agentStart(other);
    expect(await treeHash(serverRoot(other, serverId))).to.equal(expected.old);
    expect(await wasCommitted(other, stageId)).to.equal(false);
  });
});
