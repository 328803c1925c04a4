import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupHost } from '../../src/agent/transfers/backup-host.js';
import { HashCaches } from '../../src/agent/transfers/hash-caches.js';
import { Leases } from '../../src/agent/transfers/leases.js';
import { manifestPartEntries, manifestParts } from '../../src/agent/transfers/manifest-parts.js';
import { PullConnection } from '../../src/shared/peer/pull-client.js';
import { Quiescer, type ConsoleAccess } from '../../src/agent/transfers/quiesce.js';
import { Snapshots } from '../../src/agent/transfers/snapshots.js';
import type { ServerOnNode } from '../../src/agent/reconciler/reconciler.js';
import type { OutputLine } from '../../src/agent/runtime/runtime-types.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { FileChunk, ResponsePayload } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Template } from '../../src/shared/templates.js';
import { waitFor } from '../support/wait-for.js';
import { failureOf } from '../support/agent-failure.js';

const serverId = '0190a5c4-0000-7000-8000-000000000001';
const backup = { quiesce: ['save-off', 'save-all flush'], waitFor: 'Saved the game', resume: ['save-on'], timeoutSeconds: 1 };

/** A console whose server saves at once. */
function savingConsole(typed: string[]): ConsoleAccess {
  let reader: ((line: OutputLine) => void) | undefined;
  return {
    attach: async (_id, _options, onLine) => {
      reader = onLine;
      return () => (reader = undefined);
    },
    sendCommand: async (_id, line) => {
      typed.push(line);
      if (line.startsWith('save-all')) setImmediate(() => reader?.({ seq: 1, stream: 'stdout', text: 'Saved the game', truncated: false }));
    },
  };
}

describe('agent: leases of snapshots and stages', () => {
  it('ends a thing once: when asked, or when its lease runs out after the last use', async () => {
    const ended: string[] = [];
    const leases = new Leases<string>('thing', async (value) => {
      ended.push(value);
    }, () => undefined);
    leases.add('a', 'A', 60);
    leases.add('b', 'B', 60_000);
    expect((await failureOf(Promise.resolve().then(() => leases.add('a', 'again', 10)))).code).to.equal('ALREADY_EXISTS');
    // Used for longer than its lease: it does not expire under the work, and restarts after it.
    await leases.use('a', () => new Promise((resolve) => setTimeout(resolve, 120)));
    expect(ended).to.deep.equal([]);
    await waitFor(() => ended.includes('A'), { what: 'the lease to run out' });
    expect((await failureOf(leases.use('a', async () => undefined))).code).to.equal('NOT_FOUND');
    await leases.release('b');
    await leases.release('b');
    await leases.release('never');
    expect(ended).to.deep.equal(['A', 'B']);
  });
});

describe('agent: manifests in parts', () => {
  const entry = (path: string): ManifestEntry => ({ path, type: 'FILE', size: 1, mode: 0o644, sha256: 'a'.repeat(64) });

  it('bounds each part by entries and by bytes, keeping the order', () => {
    const many = Array.from({ length: 4500 }, (_, i) => entry(`region/r.${i}.mca`));
    const parts = manifestParts(many);
    expect(parts.map((p) => p.length)).to.deep.equal([manifestPartEntries, manifestPartEntries, 500]);
    expect(parts.flat()).to.deep.equal(many);
    const long = Array.from({ length: 600 }, (_, i) => entry(`${'d'.repeat(3000)}/${i}`));
    const byBytes = manifestParts(long);
    expect(byBytes.length).to.be.greaterThan(1);
    expect(byBytes.every((p) => p.reduce((n, e) => n + e.path.length, 0) <= 1024 * 1024)).to.equal(true);
    expect(manifestParts([])).to.deep.equal([[]]);
  });
});

describe('agent: snapshots', () => {
  let base: string;
  let root: string;
  let typed: string[];
  let server: ServerOnNode;
  let snapshots: Snapshots;

  const host: BackupHost = {
    serverOnNode: (id) => (id === serverId ? server : undefined),
    replaceFiles: async () => undefined,
  };
  const open = async (snapshotId: string, quiesce: boolean, leaseMs = 60_000, unhashed = false) => {
    const parts: ResponsePayload[] = [];
    const last = await snapshots.open({ serverId, snapshotId, quiesce, leaseMs, unhashed }, { sendPart: (p) => parts.push(p), signal: new AbortController().signal });
    return [...parts, last].flatMap((p) => (p.payload === 'snapshotManifest' ? p.snapshotManifest.entries : []));
  };
  const read = async (snapshotId: string, path: string, chunkBytes = 4) => {
    const chunks: FileChunk[] = [];
    chunks.push(await snapshots.read({ snapshotId, path, chunkBytes, offset: 0, length: 0 }, (c) => chunks.push(c), new AbortController().signal));
    return chunks;
  };

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-snapshots-'));
    root = join(base, 'root');
    await mkdir(join(root, 'world'), { recursive: true });
    await mkdir(join(root, '.cairn'));
    await writeFile(join(root, '.cairn', 'simcraft.mjs'), 'launcher');
    await writeFile(join(root, 'world', 'level.dat'), 'level data');
    typed = [];
    server = { root, running: true, template: { backup } as Template };
    snapshots = new Snapshots({ host, quiescer: new Quiescer(savingConsole(typed), silentLogger), caches: new HashCaches(), logger: silentLogger, peerAddress: '127.0.0.1' });
  });

  afterEach(async () => {
    await snapshots.closeAll();
    await rm(base, { recursive: true, force: true });
  });

  it('quiesces a running server, lists its files without .cairn, and resumes once on close', async () => {
    const entries = await open('snap-1', true);
    expect(entries.map((e) => e.path)).to.deep.equal(['world', 'world/level.dat']);
    expect(typed).to.deep.equal(['save-off', 'save-all flush']);
    const chunks = await read('snap-1', 'world/level.dat');
    expect(Buffer.concat(chunks.map((c) => c.data)).toString()).to.equal('level data');
    expect(chunks.map((c) => c.eof)).to.deep.equal([false, false, true]);
    const range = await snapshots.read({ snapshotId: 'snap-1', path: 'world/level.dat', chunkBytes: 1024, offset: 2, length: 5 }, () => undefined, new AbortController().signal);
    expect(range).to.deep.include({ offset: 2, eof: false, totalBytes: 10 });
    expect(range.data.toString()).to.equal('vel d');
    await snapshots.close('snap-1');
    await snapshots.close('snap-1');
    expect(typed).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
  });

  it('resumes the server when the lease runs out, and forgets the snapshot', async () => {
    await open('snap-2', true, 50);
    await waitFor(() => typed.includes('save-on'), { what: 'the resume at lease expiry' });
    expect((await failureOf(read('snap-2', 'world/level.dat'))).code).to.equal('NOT_FOUND');
  });

  it('reads the server as it is when not asked to quiesce, or when it is not running', async () => {
    await open('snap-3', false);
    server = { ...server, running: false };
    await open('snap-4', true);
    expect(typed).to.deep.equal([]);
  });

  it('reads only the files of its manifest', async () => {
    await open('snap-5', false);
    await writeFile(join(root, 'later.txt'), 'after the snapshot');
    expect((await failureOf(read('snap-5', 'later.txt'))).code).to.equal('NOT_FOUND');
    expect((await failureOf(read('snap-5', '.cairn/simcraft.mjs'))).code).to.equal('NOT_FOUND');
    expect((await failureOf(read('snap-5', 'world'))).code).to.equal('NOT_FOUND');
  });

  it('unhashed, reads no file; the hashes of files served whole to a peer are known to the next snapshot, until a file changes', async () => {
    let opened = 0;
    const level = () => open(`snap-u${++opened}`, false, 60_000, true).then((entries) => entries.find((e) => e.path === 'world/level.dat')!.sha256);
    expect(await level()).to.equal('');
    const key = randomBytes(32);
    await open('snap-served', false, 60_000, true);
    const port = await snapshots.serve({ snapshotId: 'snap-served', grantId: 'grant-1', key, ttlMs: 60_000 });
    const connection = await PullConnection.open({ host: '127.0.0.1', port, grantId: 'grant-1', key, connectTimeoutMs: 2000 }, new AbortController().signal);
    const frames = [];
    for await (const frame of connection.file('world/level.dat')) frames.push(frame);
    connection.close();
    const sent = createHash('sha256').update('level data').digest('hex');
    expect(frames.at(-1)).to.deep.equal({ kind: 'end', sha256: sent });
    expect(await level()).to.equal(sent);
    expect((await open('snap-hashed', false)).find((e) => e.path === 'world/level.dat')!.sha256).to.equal(sent);
    await writeFile(join(root, 'world', 'level.dat'), 'level data, changed');
    expect(await level()).to.equal('');
  });

  it('learns the hash of a file the Controller read whole, range after range from its start; not of one read out of order or changed between ranges', async () => {
    let opened = 0;
    const unhashed = () => open(`snap-r${++opened}`, false, 60_000, true);
    const hashOf = (entries: { path: string; sha256: string }[], path: string) => entries.find((e) => e.path === path)!.sha256;
    await writeFile(join(root, 'world', 'region.mca'), 'region bytes, twenty');
    await unhashed();
    const ranged = async (path: string, offsets: number[], between?: () => Promise<void>) => {
      for (const offset of offsets) {
        await snapshots.read({ snapshotId: `snap-r${opened}`, path, chunkBytes: 3, offset, length: 7 }, () => undefined, new AbortController().signal);
        await between?.();
      }
    };
    await ranged('world/level.dat', [0, 7]);
    await ranged('world/region.mca', [0, 14]);
    const next = await unhashed();
    expect(hashOf(next, 'world/level.dat')).to.equal(createHash('sha256').update('level data').digest('hex'));
    expect(hashOf(next, 'world/region.mca')).to.equal('');
    await writeFile(join(root, 'world', 'other.dat'), 'other data');
    await unhashed();
    await ranged('world/other.dat', [0, 7], () => writeFile(join(root, 'world', 'other.dat'), 'other Data'));
    expect(hashOf(await unhashed(), 'world/other.dat')).to.equal('');
  });

  it('refuses an unknown server, a bad id and an id in use', async () => {
    expect((await failureOf(snapshots.open({ serverId: '0190a5c4-0000-7000-8000-000000000002', snapshotId: 'x', quiesce: true, leaseMs: 0 }, { sendPart: () => undefined, signal: new AbortController().signal }))).code).to.equal('NOT_FOUND');
    expect((await failureOf(open('../x', false))).code).to.equal('INVALID_REQUEST');
    await open('snap-6', false);
    expect((await failureOf(open('snap-6', false))).code).to.equal('ALREADY_EXISTS');
  });

  it('resumes every quiesced server when all snapshots close (link gone, Agent stopping)', async () => {
    await open('snap-7', true);
    await open('snap-8', true);
    expect(typed).to.deep.equal(['save-off', 'save-all flush']);
    await snapshots.closeAll();
    expect(typed).to.deep.equal(['save-off', 'save-all flush', 'save-on']);
  });
});
