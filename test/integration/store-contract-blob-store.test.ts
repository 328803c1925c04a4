import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { ChecksumMismatchError, collectGarbage, type BlobStore } from '../../src/shared/backup/blob-store.js';
import { describeStoreContract } from '../support/store-contract.js';

describeStoreContract('backup blob store', (contract) => {
  let seq = 0;
  const bytes = (n: number, seed: string) => Buffer.concat(Array.from({ length: Math.ceil(n / 32) }, (_, i) => createHash('sha256').update(`${seed}${i}`).digest())).subarray(0, n);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const chunks = (b: Buffer, size = 64 * 1024) => Readable.from(Array.from({ length: Math.ceil(b.length / size) || 1 }, (_, i) => b.subarray(i * size, (i + 1) * size)));
  const read = async (store: BlobStore, sha256: string) => {
    const parts: Buffer[] = [];
    for await (const part of store.readBlob(sha256)) parts.push(part as Buffer);
    return Buffer.concat(parts);
  };
  const list = async (items: AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const item of items) out.push(item);
    return out.sort();
  };
  const manifest = (backupId: string, shas: string[]) => ({
    formatVersion: 1 as const, backupId, createdAt: '2030-01-01T00:00:00.000Z',
    entries: [{ path: 'world', type: 'DIRECTORY' as const, size: 0, mode: 0o755, sha256: '' }, ...shas.map((s, i) => ({ path: `world/f${i}`, type: 'FILE' as const, size: 1, mode: 0o644, sha256: s }))],
  });

  it('streams a blob in and out by sha256; a second put adds nothing; destinations are apart', async () => {
    const store = contract.adapter.openBlobStore(`dest-${seq++}`);
    const other = contract.adapter.openBlobStore(`dest-${seq++}`);
    const content = bytes(3 * 1024 * 1024 + 17, 'big');
    expect(await store.hasBlob(sha(content))).to.equal(false);
    const added = await store.putBlob(sha(content), chunks(content));
    expect(added).to.be.greaterThan(0);
    expect(await store.hasBlob(sha(content))).to.equal(true);
    expect(await other.hasBlob(sha(content))).to.equal(false);
    expect((await read(store, sha(content))).equals(content)).to.equal(true);
    expect(await store.putBlob(sha(content), chunks(content))).to.equal(0);
    expect(await list(store.listBlobs())).to.deep.equal([sha(content)]);
    const empty = Buffer.alloc(0);
    await store.putBlob(sha(empty), chunks(empty));
    expect((await read(store, sha(empty))).length).to.equal(0);
  });

  it('refuses content that is not what its name says, and keeps nothing of it', async () => {
    const store = contract.adapter.openBlobStore(`dest-${seq++}`);
    const content = bytes(100_000, 'x');
    const wrong = 'b'.repeat(64);
    const error = await store.putBlob(wrong, chunks(content)).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ChecksumMismatchError);
    expect(await store.hasBlob(wrong)).to.equal(false);
    expect(await list(store.listBlobs())).to.deep.equal([]);
  });

  it('keeps manifests by backup id and collects the blobs no manifest references', async () => {
    const store = contract.adapter.openBlobStore(`dest-${seq++}`);
    const [a, b, c] = ['a', 'b', 'c'].map((seed) => bytes(5000, seed));
    for (const blob of [a, b, c]) await store.putBlob(sha(blob), chunks(blob));
    await store.putManifest(manifest('backup-1', [sha(a), sha(b)]));
    await store.putManifest(manifest('backup-2', [sha(b)]));
    expect(await store.readManifest('backup-1')).to.deep.equal(manifest('backup-1', [sha(a), sha(b)]));
    expect(await store.readManifest('nope')).to.equal(undefined);
    expect(await list(store.listManifests())).to.deep.equal(['backup-1', 'backup-2']);
    expect(await collectGarbage(store)).to.equal(1);
    expect(await list(store.listBlobs())).to.deep.equal([sha(a), sha(b)].sort());
    await store.deleteManifest('backup-1');
    expect(await collectGarbage(store)).to.equal(1);
    expect(await list(store.listBlobs())).to.deep.equal([sha(b)]);
    expect(await list(store.listManifests())).to.deep.equal(['backup-2']);
  });
});
