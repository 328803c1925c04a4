import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ControllerKind } from '../../src/controller/services/backups/controller-kind.js';
import { DestinationLocks } from '../../src/controller/services/backups/destination-locks.js';
import type { NodeCalls } from '../../src/controller/services/agent-link/node-calls.js';
import type { BackupDestinationDoc, BackupDoc } from '../../src/controller/store/records.js';
import { collectGarbage } from '../../src/shared/backup/blob-store.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';

const at = '2026-11-23T00:00:00.000Z';
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const fileEntry = (text: string): ManifestEntry => ({ path: text, type: 'FILE', size: text.length, mode: 0o644, sha256: sha(text) });
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);

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
    const kind = new ControllerKind({} as NodeCalls, { storeOf: () => store }, new DestinationLocks(), async (id) => states[id]);
    expect(await kind.collect(destination)).to.equal(1);
    expect(await manifests()).to.deep.equal(['good', 'running', 'unknown']);
    expect(await blobs()).to.deep.equal([sha('kept'), sha('only-running'), sha('only-unknown')].sort());
  });
});
