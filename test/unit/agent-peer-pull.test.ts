import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SnapshotServer } from '../../src/agent/transfers/peer/snapshot-server.js';
import { StageFiles } from '../../src/agent/transfers/stage-files.js';
import { pullIntoStage, type PullInput } from '../../src/agent/transfers/stage-pull.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import { silentLogger } from '../../src/shared/logger.js';
import { PullConnection } from '../../src/shared/peer/pull-client.js';
import { failureOf } from '../support/agent-failure.js';
import { tempDirPerTest } from '../support/temp-dir.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const noLock = <R>(_path: string, work: () => Promise<R>) => work();

describe('Agent to Agent pulls: a snapshot served over TLS-PSK into a stage', () => {
  const dir = tempDirPerTest('cairn-peer-pull-');
  let server: SnapshotServer | undefined;
  let clock = 0;
  const files = new Map<string, ManifestEntry>();
  const contents = new Map<string, Buffer>();
  /** What the server learnt of the files it sent whole. */
  const learnt = new Map<string, string>();
  /** The files it sent whole without hashing them (an unhashed grant). */
  const sentWhole = new Set<string>();
  const key = randomBytes(32);

  const stage = async () => {
    await mkdir(join(dir(), 'stage', 'files'), { recursive: true });
    await mkdir(join(dir(), 'stage', 'incoming'), { recursive: true });
    return new StageFiles(join(dir(), 'stage', 'files'), join(dir(), 'stage', 'incoming'));
  };
  const input = (over: Partial<PullInput['peer']> = {}, expectManifest = true, paths = [...files.keys()]): PullInput => ({
    peer: { host: '127.0.0.1', port: server!.port, grantId: 'grant-1', key, connectTimeoutMs: 2000, ...over },
    files: paths.map((p) => ({ path: p, sha256: files.get(p)?.sha256 ?? '0'.repeat(64), size: files.get(p)?.size ?? 1, mode: 0o644 })),
    expectManifest,
  });

  beforeEach(async () => {
    files.clear();
    contents.clear();
    learnt.clear();
    sentWhole.clear();
    await mkdir(join(dir(), 'root', 'world'), { recursive: true });
    // Files of several frames, one of none, and one just past a frame's end.
    for (const [path, size] of [['world/a.mca', 3 * 1024 * 1024 + 7], ['world/empty', 0], ['level.dat', 1024 * 1024 + 1], ['b', 100]] as const) {
      const data = randomBytes(size);
      await writeFile(join(dir(), 'root', path), data);
      files.set(path, { path, type: 'FILE', size, sha256: sha256(data), mode: 0o644 });
      contents.set(path, data);
    }
    clock = 0;
    server = await SnapshotServer.listen({ root: join(dir(), 'root'), files, use: (work) => work(), hashed: (path, _key, sha) => learnt.set(path, sha), sentWhole: (path) => sentWhole.add(path) }, '127.0.0.1', 0, silentLogger, () => clock);
    server.grant('grant-1', key, 60_000);
  });
  afterEach(async () => {
    await server?.close();
  });

  it('copies every file intact, each checked against the manifest, and answers the bytes', async () => {
    const bytes = await pullIntoStage(await stage(), input(), noLock, new AbortController().signal);
    expect(bytes).to.equal([...contents.values()].reduce((n, c) => n + c.length, 0));
    for (const [path, data] of contents) expect(sha256(await readFile(join(dir(), 'stage', 'files', path))), path).to.equal(sha256(data));
    // The serving side learnt each file's hash as it sent it, for its next scan.
    expect(Object.fromEntries(learnt)).to.deep.equal(Object.fromEntries([...contents].map(([path, data]) => [path, sha256(data)])));
  });

  it('to a reader that hashes for itself (an unhashed grant) each file ends without its sha256, and a stage refuses that', async () => {
    server!.grant('grant-2', key, 60_000, true);
    const connection = await PullConnection.open({ host: '127.0.0.1', port: server!.port, grantId: 'grant-2', key, connectTimeoutMs: 2000 }, new AbortController().signal);
    try {
      for (const [path, data] of contents) {
        const got: Buffer[] = [];
        let end: string | undefined;
        for await (const frame of connection.file(path, true)) {
          if (frame.kind === 'data') got.push(frame.data);
          if (frame.kind === 'end') end = frame.sha256;
        }
        expect(Buffer.concat(got).equals(data), path).to.equal(true);
        expect(end, path).to.equal('');
      }
    } finally {
      connection.close();
    }
    expect([...sentWhole].sort()).to.deep.equal([...contents.keys()].sort());
    expect(learnt.size, 'nothing hashed').to.equal(0);
    const refused = await failureOf(pullIntoStage(await stage(), input({ grantId: 'grant-2' }, false, ['b']), noLock, new AbortController().signal));
    expect(refused.code).to.equal('CHECKSUM_MISMATCH');
  });

  it('refuses a connection with another key, or past the grant\'s time: PEER_UNREACHABLE, nothing staged', async () => {
    const files = await stage();
    expect((await failureOf(pullIntoStage(files, input({ key: randomBytes(32) }), noLock, new AbortController().signal))).code).to.equal('PEER_UNREACHABLE');
    expect((await failureOf(pullIntoStage(files, input({ grantId: 'another' }), noLock, new AbortController().signal))).code).to.equal('PEER_UNREACHABLE');
    clock = 61_000;
    expect((await failureOf(pullIntoStage(files, input(), noLock, new AbortController().signal))).code).to.equal('PEER_UNREACHABLE');
    expect(await readdir(join(dir(), 'stage', 'files'))).to.deep.equal([]);
  });

  it('answers PEER_UNREACHABLE when nothing listens', async () => {
    const asked = input({}, true, ['b']);
    await server!.close();
    server = undefined;
    const failure = await failureOf(pullIntoStage(await stage(), asked, noLock, new AbortController().signal));
    expect(failure.code).to.equal('PEER_UNREACHABLE');
  });

  it('serves only the snapshot\'s files, and a file that is not what the manifest says fails CHECKSUM_MISMATCH', async () => {
    expect((await failureOf(pullIntoStage(await stage(), input({}, true, ['../outside']), noLock, new AbortController().signal))).code).to.equal('NOT_FOUND');
    await writeFile(join(dir(), 'root', 'b'), randomBytes(100));
    const files = await stage();
    expect((await failureOf(pullIntoStage(files, input({}, true, ['b']), noLock, new AbortController().signal))).code).to.equal('CHECKSUM_MISMATCH');
    // The first copy of a running server takes a file as it is now, checked against what the source sent.
    expect(await pullIntoStage(files, input({}, false, ['b']), noLock, new AbortController().signal)).to.equal(100);
  });
});
