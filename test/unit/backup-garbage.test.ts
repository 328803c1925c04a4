import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ControllerKind } from '../../src/controller/services/backups/controller-kind.js';
import { DestinationClaims } from '../../src/controller/services/backups/destination-claims.js';
import { DestinationLocks } from '../../src/controller/services/backups/destination-locks.js';
import type { NodeCalls } from '../../src/controller/link/node-calls.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { BackupDestinationDoc, BackupDoc } from '../../src/controller/store/records.js';
import { collectGarbage } from '../../src/shared/backup/blob-store.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';

const at = '2026-11-23T00:00:00.000Z';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const fileEntry = (text: string): ManifestEntry => ({ path: text, type: 'FILE', size: text.length, mode: 0o644, sha256: sha(text) });
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);

/** No Node to read from: these tests take no backup. */
const peers = { hostOf: async () => '', logger: silentLogger, count: () => undefined };

describe('backup garbage left by a process killed mid-backup', () => {
  let base: string;
  let store: FsBlobStore;

  const put = async (text: string) => store.putBlob(sha(text), Readable.from([Buffer.from(text)]));
  const blobs = async () => { const all: string[] = []; for await (const b of store.listBlobs()) all.push(b); return all.sort(); };
  const manifests = async () => { const all: string[] = []; for await (const m of store.listManifests()) all.push(m); return all.sort(); };
  /** What a killed putBlob / putManifest leaves: a temporary file under its final name's directory. */
  const leaveFile = async (dir: string, name: string, touched: Date) => {
    await mkdir(join(store.root, dir), { recursive: true });
    await writeFile(join(store.root, dir, name), 'half');
    await utimes(join(store.root, dir, name), touched, touched);
  };
  const partials = async () => {
    const found: string[] = [];
    for (const dir of await readdir(join(store.root, 'blobs'))) found.push(...(await readdir(join(store.root, 'blobs', dir))).filter((n) => n.endsWith('.partial')));
    found.push(...(await readdir(join(store.root, 'manifests'))).filter((n) => n.endsWith('.partial')));
    return found.sort();
  };

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-garbage-'));
    store = new FsBlobStore(join(base, 'store'));
    await put('kept');
    await store.putManifest({ formatVersion: 1, backupId: 'good', createdAt: at, entries: [fileEntry('kept')] });
    await leaveFile('blobs/ab', `${'ab'.repeat(32)}.0000-old.partial`, hoursAgo(2));
    await leaveFile('blobs/cd', `${'cd'.repeat(32)}.0000-new.partial`, new Date());
    await leaveFile('manifests', 'cut.json.0000-old.partial', hoursAgo(2));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('a collection removes temporary files untouched for over an hour, not fresh ones', async () => {
    await collectGarbage(store);
    expect(await partials()).to.deep.equal([`${'cd'.repeat(32)}.0000-new.partial`]);
    expect(await blobs()).to.deep.equal([sha('kept')]);
  });

  it('a collection at start (nothing writing) removes every temporary file', async () => {
    await collectGarbage(store, { partialsIdleMs: 0 });
    expect(await partials()).to.deep.equal([]);
  });

  it('the blobs of a backup cut off before its manifest go at the next collection', async () => {
    await put('orphan-1');
    await put('orphan-2');
    expect(await collectGarbage(store)).to.equal(2);
    expect(await blobs()).to.deep.equal([sha('kept')]);
  });

  it('a FAILED backup\'s manifest keeps no blob; those of SUCCEEDED, RUNNING or unknown backups do', async () => {
    const states: Record<string, BackupDoc['state']> = { good: 'SUCCEEDED', failed: 'FAILED', running: 'RUNNING' };
    for (const [id, text] of [['failed', 'only-failed'], ['running', 'only-running'], ['unknown', 'only-unknown']]) {
      await put(text);
      await store.putManifest({ formatVersion: 1, backupId: id, createdAt: at, entries: [fileEntry(text), fileEntry('kept')] });
    }
    const destination = { _id: 'd1', kind: 'CONTROLLER' } as BackupDestinationDoc;
    const kind = new ControllerKind({} as NodeCalls, { storeOf: () => store }, new DestinationLocks(), new DestinationClaims(), { stateOf: async (id) => states[id], teamsIn: async () => [] }, peers);
    expect(await kind.collect(destination)).to.equal(1);
    expect(await manifests()).to.deep.equal(['good', 'running', 'unknown']);
    expect(await blobs()).to.deep.equal([sha('kept'), sha('only-running'), sha('only-unknown')].sort());
  });

  it('a backup older than team areas is pruned from the root, a newer one from its team\'s area; each area keeps its own blobs', async () => {
    const areas = new Map<string, FsBlobStore>();
    const storeOf = (_d: BackupDestinationDoc, teamId: string | undefined) => {
      const key = teamId ?? 'root';
      if (!areas.has(key)) areas.set(key, new FsBlobStore(join(base, 'areas', key)));
      return areas.get(key)!;
    };
    const write = async (teamId: string | undefined, backupId: string, text: string) => {
      const area = storeOf({} as BackupDestinationDoc, teamId);
      await area.putBlob(sha(text), Readable.from([Buffer.from(text)]));
      await area.putManifest({ formatVersion: 1, backupId, createdAt: at, entries: [fileEntry(text)] });
    };
    await write(undefined, 'legacy', 'shared');
    await write('t1', 'new-1', 'shared');
    await write('t2', 'new-2', 'shared');
    const kind = new ControllerKind({} as NodeCalls, { storeOf }, new DestinationLocks(), new DestinationClaims(), { stateOf: async () => 'SUCCEEDED', teamsIn: async () => ['t1', 't2'] }, peers);
    const destination = { _id: 'd1', kind: 'CONTROLLER' } as BackupDestinationDoc;
    await kind.prune(destination, [{ _id: 'legacy', teamId: 't1' }, { _id: 'new-1', teamId: 't1', teamArea: true }] as BackupDoc[]);
    const listed = async (teamId: string | undefined) => { const all: string[] = []; for await (const b of storeOf(destination, teamId).listBlobs()) all.push(b); return all; };
    expect(await listed(undefined)).to.deep.equal([]);
    expect(await listed('t1')).to.deep.equal([]);
    expect(await listed('t2'), 'another team\'s copy stays').to.deep.equal([sha('shared')]);
  });
});
