import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskAccounts, maxMeasureAgeMs } from '../../src/agent/disk/disk-accounts.js';

describe('disk accounts: how often a server\'s tree is walked', () => {
  let root: string;
  let nowMs: number;
  let accounts: DiskAccounts;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'cairn-disk-accounts-'));
    await writeFile(join(root, 'server.properties'), 'motd=x\n');
    nowMs = 1_000_000;
    accounts = new DiskAccounts({ mode: 'accounting', minGapMs: 10_000, now: () => nowMs, random: () => 0 });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('a tree never walked is due, busy or quiet', () => {
    expect(accounts.due('s1')).to.equal(true);
    expect(accounts.due('s1', true)).to.equal(true);
  });

  it('a busy server\'s tree is due again after the status interval; a quiet one\'s only at the contract\'s bound of a minute', async () => {
    await accounts.measure('s1', root);
    nowMs += 10_000;
    expect(accounts.due('s1'), 'busy, one interval later').to.equal(true);
    expect(accounts.due('s1', true), 'quiet, one interval later').to.equal(false);
    nowMs += maxMeasureAgeMs - 10_000 - 1;
    expect(accounts.due('s1', true), 'quiet, just under a minute').to.equal(false);
    nowMs += 1;
    expect(accounts.due('s1', true), 'quiet, a minute later').to.equal(true);
  });

  it('a quiet server\'s next walk falls at a random point of the minute\'s last quarter, so walks ended together do not stay in step', async () => {
    const draws = [0, 0.5, 0.999];
    const spread = new DiskAccounts({ mode: 'accounting', minGapMs: 10_000, now: () => nowMs, random: () => draws.shift()! });
    for (const id of ['s1', 's2', 's3']) await spread.measure(id, root);
    nowMs += 45_000 - 1;
    expect(['s1', 's2', 's3'].map((id) => spread.due(id, true)), 'all within 45 s').to.deep.equal([false, false, false]);
    nowMs += 1 + 15_000 * 0.001;
    expect(['s1', 's2', 's3'].map((id) => spread.due(id, true)), 'at the quarter\'s start').to.deep.equal([false, false, true]);
    nowMs += 7_500;
    expect(['s1', 's2', 's3'].map((id) => spread.due(id, true)), 'at its middle').to.deep.equal([false, true, true]);
    nowMs = 1_000_000 + maxMeasureAgeMs;
    expect(['s1', 's2', 's3'].map((id) => spread.due(id, true)), 'all by the minute').to.deep.equal([true, true, true]);
  });
});
