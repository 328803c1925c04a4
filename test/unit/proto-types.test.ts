import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentProtoPath } from '../../src/shared/link/proto.js';
import { generatedDir, generateProtoTypes } from '../../scripts/gen-proto.js';

/** Every TypeScript file under `dir` (relative path → text). */
async function tree(dir: string): Promise<Map<string, string>> {
  const paths = (await readdir(dir, { recursive: true })).filter((path) => path.endsWith('.ts'));
  return new Map(await Promise.all(paths.map(async (path) => [path, await readFile(join(dir, path), 'utf8')] as const)));
}

describe('generated proto types', () => {
  let fresh: string;
  before(async () => {
    fresh = await mkdtemp(join(tmpdir(), 'cairn-proto-types-'));
  });
  after(() => rm(fresh, { recursive: true, force: true }));

  it('are what the generator makes of proto/ today (else run npm run gen:proto)', async () => {
    generateProtoTypes(fresh);
    const [expected, checkedIn] = await Promise.all([tree(fresh), tree(generatedDir)]);
    expect([...checkedIn.keys()].sort(), 'files in src/shared/link/generated').to.deep.equal([...expected.keys()].sort());
    const stale = [...expected].filter(([path, text]) => checkedIn.get(path) !== text).map(([path]) => path);
    expect(stale, 'stale generated files').to.deep.equal([]);
    expect(expected.size).to.be.greaterThan(40);
  });

  // The loader cuts enum names (RUNNING, STOPPED...) out of the file's text: one character outside
  // ASCII makes them all two-byte strings, and with them every JSON answer holding one (a page of
  // servers then costs several times more to measure and write).
  it('the proto file is ASCII, so the names decoded from it are one-byte strings', async () => {
    const lines = (await readFile(agentProtoPath(), 'utf8')).split('\n');
    expect(lines.filter((line) => /[^\t -~]/.test(line)), 'agent.proto lines with characters outside ASCII').to.deep.equal([]);
  });
});
