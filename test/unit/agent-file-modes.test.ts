import { expect } from 'chai';
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeServerHome, narrowAgentFiles } from '../../src/agent/reconciler/server-home.js';

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

describe('the Agent\'s files of an earlier version (0644 and 0755) are narrowed at start, the game\'s are not', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-modes-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('narrows servers/, each home, its records and state, and the caches; leaves root/ and software/ alone', async () => {
    const home = join(dataDir, 'servers', 's1');
    for (const dir of ['root/world', 'software/lib', 'state', '../../cache/downloads']) await mkdir(join(home, dir), { recursive: true, mode: 0o755 });
    for (const file of ['applied.json', 'network-member', 'state/run.json', 'root/server.properties', 'software/lib/a.jar', '../../cache/downloads/abc']) {
      await writeFile(join(home, file), 'x', { mode: 0o644 });
    }
    await chmod(join(dataDir, 'servers'), 0o755);
    await chmod(home, 0o755);
    expect(await narrowAgentFiles(dataDir)).to.be.greaterThan(0);
    for (const path of ['servers', 'servers/s1', 'servers/s1/state', 'cache', 'cache/downloads', 'cache/plugins']) expect(await modeOf(join(dataDir, path)), path).to.equal('700');
    for (const path of ['applied.json', 'network-member', 'state/run.json']) expect(await modeOf(join(home, path)), path).to.equal('600');
    for (const path of ['root', 'root/world', 'software', 'software/lib']) expect(await modeOf(join(home, path)), path).to.equal('755');
    for (const path of ['root/server.properties', 'software/lib/a.jar']) expect(await modeOf(join(home, path)), path).to.equal('644');
    expect(await narrowAgentFiles(dataDir)).to.equal(0);
  });

  it('makes a new server\'s home 0700 whatever the umask', async () => {
    await makeServerHome(dataDir, 's2');
    expect(await modeOf(join(dataDir, 'servers'))).to.equal('700');
    expect(await modeOf(join(dataDir, 'servers', 's2'))).to.equal('700');
  });
});
