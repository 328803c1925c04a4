import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GameUidsRefusedError } from '../../src/agent/isolation/game-uids.js';
import { freeRangeLike, holdersIn, parseIdFile, readHostIds, refuseHeldIds } from '../../src/agent/isolation/host-ids.js';
import { claimGameUids } from '../../src/agent/isolation/uid-claims.js';
import { readProcStat } from '../../src/shared/proc-stat.js';

const passwd = [
  'root:x:0:0:root:/root:/bin/bash',
  'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
  'minecraft:x:250000:250000::/home/minecraft:/bin/bash',
  '# a comment',
  'broken line',
].join('\n');
const subuid = 'alice:100000:65536\nbob:165536:65536\n';

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = await work.then(() => null, (e: unknown) => e);
  expect(error).to.be.instanceOf(GameUidsRefusedError);
  return (error as Error).message;
}

describe('--game-uids against the host\'s accounts (passwd, group, subuid, subgid)', () => {
  it('reads users, groups and subordinate ranges, skipping comments and broken lines', () => {
    expect(parseIdFile('passwd', passwd, '/etc/passwd').map((h) => h.range.first)).to.deep.equal([0, 65534, 250000]);
    expect(parseIdFile('group', 'games:x:60:\nplayers:x:300001:a,b\n', '/etc/group')[1]).to.deep.equal({ holder: 'group "players" (gid 300001, /etc/group)', range: { first: 300001, last: 300001 } });
    expect(parseIdFile('subuid', subuid, '/etc/subuid')).to.deep.equal([
      { holder: '"alice"\'s subordinate ids 100000-165535 (/etc/subuid)', range: { first: 100000, last: 165535 } },
      { holder: '"bob"\'s subordinate ids 165536-231071 (/etc/subuid)', range: { first: 165536, last: 231071 } },
    ]);
  });

  it('finds the holders inside a range, and a free range of the same size above them', () => {
    const holders = [...parseIdFile('passwd', passwd, 'p'), ...parseIdFile('subuid', subuid, 's')];
    expect(holdersIn({ first: 200000, last: 299999 }, holders).map((h) => h.holder)).to.deep.equal(['user "minecraft" (uid 250000, p)', '"bob"\'s subordinate ids 165536-231071 (s)']);
    expect(holdersIn({ first: 300000, last: 399999 }, holders)).to.deep.equal([]);
    expect(freeRangeLike({ first: 200000, last: 299999 }, holders)).to.deep.equal({ first: 250001, last: 350000 });
    expect(freeRangeLike({ first: 4_294_967_000, last: 4_294_967_294 }, [{ holder: 'x', range: { first: 4_294_967_100, last: 4_294_967_100 } }])).to.equal(undefined);
  });

  it('refuses an overlapping range naming the holder and a free range; a missing subuid file holds nothing', async () => {
    const etc = await mkdtemp(join(tmpdir(), 'cairn-etc-'));
    try {
      await writeFile(join(etc, 'passwd'), passwd);
      await writeFile(join(etc, 'group'), 'root:x:0:\n');
      await refuseHeldIds({ first: 300000, last: 399999 }, etc);
      expect(await refusal(refuseHeldIds({ first: 200000, last: 299999 }, etc))).to.equal(
        `--game-uids 200000-299999 overlaps ids this host already gives: user "minecraft" (uid 250000, ${join(etc, 'passwd')}). Give a range nobody holds, e.g. --game-uids 250001-350000.`,
      );
      await writeFile(join(etc, 'subgid'), subuid);
      expect((await readHostIds(etc)).length).to.equal(6);
      expect(await refusal(refuseHeldIds({ first: 120000, last: 129999 }, etc))).to.include('"alice"\'s subordinate ids 100000-165535');
    } finally {
      await rm(etc, { recursive: true, force: true });
    }
  });
});

describe('an Agent\'s claim of its uid range among the host\'s Agents', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-claims-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** A claim as another live Agent (this test's parent process, a real live pid) would have written it. */
  async function otherAgent(first: number, last: number, dataDir = '/var/lib/other') {
    const pid = process.ppid;
    const startTicks = (await readProcStat(pid))!.startTicks;
    await writeFile(join(dir, `agent-${pid}.json`), JSON.stringify({ pid, startTicks, first, last, dataDir }));
  }

  it('refuses a range a live Agent holds, naming its data dir, pid and range; takes a disjoint one and releases it', async () => {
    await otherAgent(200000, 299999);
    const message = await refusal(claimGameUids(dir, '/var/lib/mine', { first: 250000, last: 349999 }));
    expect(message).to.equal(`--game-uids 250000-349999 overlaps 200000-299999, the range of the Agent of data dir /var/lib/other (pid ${process.ppid}) on this host: two servers of different Agents would share an owner on disk. Give each Agent its own --game-uids.`);
    expect(await readdir(dir)).to.deep.equal([`agent-${process.ppid}.json`]);
    const claim = await claimGameUids(dir, '/var/lib/mine', { first: 300000, last: 399999 });
    expect((await readdir(dir)).sort()).to.deep.equal([`agent-${process.ppid}.json`, `agent-${process.pid}.json`].sort());
    await claim.release();
    expect(await readdir(dir)).to.deep.equal([`agent-${process.ppid}.json`]);
  });

  it('ignores (and removes) the claim of a dead Agent, and of a pid now another process\'s', async () => {
    const dead = spawnSync('true').pid;
    await writeFile(join(dir, `agent-${dead}.json`), JSON.stringify({ pid: dead, startTicks: 1, first: 200000, last: 299999, dataDir: '/gone' }));
    await writeFile(join(dir, 'agent-1.json'), JSON.stringify({ pid: 1, startTicks: 123456789, first: 200000, last: 299999, dataDir: '/reused' }));
    const claim = await claimGameUids(dir, '/var/lib/mine', { first: 200000, last: 299999 });
    expect(await readdir(dir)).to.deep.equal([`agent-${process.pid}.json`]);
    await claim.release();
  });
});
