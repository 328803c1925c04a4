import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { uploadTempPrefix } from '../../src/shared/backup/manifest.js';
import type { ArchiveJob } from '../../src/controller/schemas/file-archives.js';
import type { FileList, Node, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const files = 400;
const fileBytes = 512 * 1024;

/**
 * The Agent SIGKILLed in the middle of extracting a 200 MiB tar: the job ends FAILED (not RUNNING
 * for ever) listing what it had put in place, every file the game or a listing can see is whole,
 * and once the Agent is back nothing half-written is listed.
 */
describe('an extract cut by the Agent\'s SIGKILL (real Agent process)', function () {
  this.timeout(180_000);
  let f: Fleet;
  let id: string;
  const contents = new Map<string, string>();
  const rootOf = () => join(f.agentDir, 'servers', id, 'root');

  before(async () => {
    f = await startFleet();
    const created = await f.admin.post<ServerDetail>('/servers', { name: 'unpack', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    id = created.body.id;
    await waitForServer(f.admin, id, (s) => s.phase === 'READY', 'READY');
    // Streamed to the root, never held whole: 400 files of random bytes, each with its digest kept.
    const pack = tar.pack();
    const written = pipeline(pack, createWriteStream(join(rootOf(), 'big.tar')));
    for (let i = 0; i < files; i += 1) {
      const data = randomBytes(fileBytes);
      contents.set(`part-${String(i).padStart(3, '0')}.bin`, sha(data));
      await new Promise<void>((resolve, reject) => pack.entry({ name: `part-${String(i).padStart(3, '0')}.bin` }, data, (err) => (err ? reject(err) : resolve())));
    }
    pack.finalize();
    await written;
  });
  after(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  /** Every file under `into` a reader sees is one of the archive's, whole. */
  async function visibleFilesAreWhole(names: string[]): Promise<void> {
    for (const name of names) {
      expect(name.startsWith(uploadTempPrefix), `${name} is a temporary`).to.equal(false);
      expect(sha(await readFile(join(rootOf(), 'out', name))), `${name} is whole`).to.equal(contents.get(name));
    }
  }

  it('ends FAILED with the files written listed, each whole; nothing half-written is listed before or after the Agent returns', async () => {
    const started = await f.admin.post<ArchiveJob>(`/servers/${id}/files/extract`, { path: 'big.tar', into: 'out' });
    expect(started.status, started.text).to.equal(202);
    const jobUrl = `/servers/${id}/files/jobs/${started.body.id}`;
    const midway = await waitFor(async () => {
      const job = (await f.admin.get<ArchiveJob>(jobUrl)).body;
      return job.state !== 'RUNNING' || (job.entries ?? 0) >= 5 ? job : undefined;
    }, { timeoutMs: 60_000, intervalMs: 10, what: 'the extract to have put 5 files in place' });
    expect(midway.state, 'the extract was still running when the Agent was killed').to.equal('RUNNING');
    await f.agent.kill('SIGKILL');

    const failed = await waitFor(async () => {
      const job = (await f.admin.get<ArchiveJob>(jobUrl)).body;
      return job.state === 'RUNNING' ? undefined : job;
    }, { timeoutMs: 60_000, what: 'the job to end once its Agent is gone' });
    expect(failed.state).to.equal('FAILED');
    expect(failed.error).to.be.a('string').and.not.equal('');
    const listed = failed.written ?? [];
    expect(listed.length, 'written lists the files put in place').to.be.at.least(5).and.below(files);
    expect(listed.every((p) => p.startsWith('out/part-'))).to.equal(true);
    await visibleFilesAreWhole(listed.map((p) => p.slice('out/'.length)));
    // On the disk (what the game reads) every file under its own name is whole; only temporaries may be partial.
    const onDisk = (await readdir(join(rootOf(), 'out'))).filter((n) => !n.startsWith(uploadTempPrefix));
    await visibleFilesAreWhole(onDisk);
    expect(onDisk.length).to.be.at.least(listed.length);

    await f.startAgent();
    await waitFor(async () => (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body.status.connectionState === 'HEALTHY', { timeoutMs: 60_000, what: 'the Agent back' });
    const after = await f.admin.get<FileList>(`/servers/${id}/files?path=out`);
    expect(after.status, after.text).to.equal(200);
    const names = after.body.items.map((e) => e.name);
    expect(names.length).to.be.at.least(listed.length);
    await visibleFilesAreWhole(names);
    const sizes = new Set(after.body.items.map((e) => Number(e.sizeBytes)));
    expect([...sizes], 'every listed file has the size of a whole one').to.deep.equal([fileBytes]);
  });
});
