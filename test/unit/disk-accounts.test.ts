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
    accounts = new DiskAccounts({ mode: 'accounting', minGapMs: 10_000, now: () => nowMs });
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
});
