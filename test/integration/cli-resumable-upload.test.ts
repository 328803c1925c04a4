import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerDetail } from '../support/api-types.js';
import { adminCredentials } from '../support/controller.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { RunningProgram, runBuilt } from '../support/run-program.js';
import { waitFor } from '../support/wait-for.js';

const MiB = 1024 * 1024;
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The built `cairn` (`npm run build` first): a large cp killed half way, then run again, resumes. */
describe('cairn cp of a file over 64 MiB: an upload session that a second cp resumes', function () {
  this.timeout(180_000);
  let f: Fleet;
  let home: string;
  let id: string;
  const env = () => ({ CAIRN_CREDENTIALS: join(home, 'credentials.json'), CAIRN_URL: '', CAIRN_TOKEN: '' });
  const uploadsDir = () => join(f.agentDir, 'servers', id, 'uploads');
  const partBytes = async () => {
    const parts = (await readdir(uploadsDir()).catch(() => [])).filter((n) => n.endsWith('.part'));
    return parts.length === 1 ? (await stat(join(uploadsDir(), parts[0]))).size : 0;
  };

  before(async () => {
    f = await startFleet();
    home = await mkdtemp(join(tmpdir(), 'cairn-cli-resume-'));
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'lobby', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    const login = await runBuilt('cli', ['login', '--url', f.t.baseUrl, '--username', adminCredentials.username, '--password-stdin'], { env: env(), stdin: `${adminCredentials.password}\n` });
    expect(login.code, login.stderr).to.equal(0);
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('is killed after its first pieces; the same cp again continues from the Node\'s offset and the file arrives whole', async () => {
    const data = randomBytes(160 * MiB);
    const local = join(home, 'world.bin');
    await writeFile(local, data);
    const first = new RunningProgram('cli', ['cp', local, 'lobby:world.bin'], env());
    await waitFor(async () => (await partBytes()) >= 16 * MiB || undefined, { what: 'the first piece on the Node', timeoutMs: 60_000, intervalMs: 20 });
    await first.stop();
    const cutAt = await partBytes();
    expect(cutAt, 'the upload was cut before its end').to.be.below(data.length);
    expect(await readdir(join(f.agentDir, 'servers', id, 'root'))).to.not.include('world.bin');
    const saved = JSON.parse(await readFile(join(home, 'uploads.json'), 'utf8')) as Record<string, { uploadId: string }>;
    expect(Object.keys(saved)).to.have.length(1);

    const again = await runBuilt('cli', ['cp', local, 'lobby:world.bin'], { env: env() });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/^resuming at \d+ of 167772160 bytes$/m);
    expect(Number(/resuming at (\d+)/.exec(again.stderr)![1])).to.be.at.least(16 * MiB);
    expect(again.stdout).to.equal(`copied ${data.length} bytes to lobby:world.bin\n`);
    expect(sha(await readFile(join(f.agentDir, 'servers', id, 'root', 'world.bin')))).to.equal(sha(data));
    expect(JSON.parse(await readFile(join(home, 'uploads.json'), 'utf8'))).to.deep.equal({});
  });
});
