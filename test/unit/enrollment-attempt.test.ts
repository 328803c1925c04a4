import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attemptFile, EnrollmentAttemptStore } from '../../src/agent/link/enrollment-attempt.js';

describe('Agent enrollment attempt id', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-attempt-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('is drawn once per token and kept across restarts, private (0600), without the token itself', async () => {
    const first = await new EnrollmentAttemptStore(dir).idFor('cairn_enr_one');
    expect(first).to.have.length.of.at.least(32);
    expect(await new EnrollmentAttemptStore(dir).idFor('cairn_enr_one')).to.equal(first);
    const path = join(dir, attemptFile);
    expect((await stat(path)).mode & 0o777).to.equal(0o600);
    expect(await readFile(path, 'utf8')).not.to.include('cairn_enr_one');
  });

  it('a new token gets a new attempt id; forget removes it; a torn file costs only a new id', async () => {
    const store = new EnrollmentAttemptStore(dir);
    const one = await store.idFor('cairn_enr_one');
    const two = await store.idFor('cairn_enr_two');
    expect(two).not.to.equal(one);
    await store.forget();
    expect(await store.idFor('cairn_enr_two')).not.to.equal(two);
    await writeFile(store.path, '{"tokenHash":');
    expect(await store.idFor('cairn_enr_two')).to.be.a('string').with.length.of.at.least(32);
    await store.forget();
    await store.forget();
  });
});
