import { expect } from 'chai';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SilenceMemory, silenceFile } from '../../src/agent/link/silence-memory.js';

describe('SilenceMemory: the Controllers\' silence limit kept across Agent starts', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-silence-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('knows no limit before a Welcome gave one, then the last one given, in a file only the Agent reads', async () => {
    const memory = new SilenceMemory(dir);
    expect(await memory.load()).to.equal(0);
    await memory.save(7_500);
    await memory.save(1_500);
    expect(await new SilenceMemory(dir).load()).to.equal(1_500);
    expect((await stat(join(dir, silenceFile))).mode & 0o777).to.equal(0o600);
  });

  it('a torn or strange file is no limit (the next Welcome gives one)', async () => {
    const memory = new SilenceMemory(dir);
    for (const text of ['{"silenceLimitMs":', '{"silenceLimitMs":"7500"}', '{"silenceLimitMs":-1}', '[]']) {
      await writeFile(join(dir, silenceFile), text);
      expect(await memory.load(), text).to.equal(0);
    }
  });
});
