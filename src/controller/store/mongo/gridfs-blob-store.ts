import { counting } from '../counting-stream.js';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { GridFSBucket } from 'mongodb';
import { BlobDecoder, BlobEncoder, shaPattern, verifying } from '../../../shared/backup/blob-encoding.js';
import type { BlobStore } from '../../../shared/backup/blob-store.js';
import type { BackupManifest } from '../../../shared/backup/manifest.js';

const idPattern = /^[A-Za-z0-9-]{1,100}$/;

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new Error(`not a ${what}: ${value.slice(0, 80)}`);
  return value;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One CONTROLLER destination's content-addressed store in GridFS (bucket `backups`), for the
 * Controller on MongoDB: blobs are files named `<area>/blobs/<sha256>` (BlobEncoder: gzip only where it pays)
 * and manifests `<area>/manifests/<backupId>` (gzip JSON). GridFS writes a file's
 * document only after its last chunk, so a cut-off upload never shows under its name (GridFS's
 * own filename index serves the lookups); blobs stream in GridFS chunks, never held whole.
 */
export class GridFsBlobStore implements BlobStore {
  /** Where the files' names start: the destination, or a team's area in it (`<destinationId>/teams/<teamId>`). */
  private readonly area: string;

  constructor(private readonly bucket: GridFSBucket, private readonly destinationId: string, teamId?: string) {
    checked(destinationId, idPattern, 'destination id');
    this.area = teamId ? `${destinationId}/teams/${checked(teamId, idPattern, 'team id')}` : destinationId;
  }

  private blobName = (sha256: string) => `${this.area}/blobs/${checked(sha256, shaPattern, 'sha256')}`;
  private manifestName = (backupId: string) => `${this.area}/manifests/${checked(backupId, idPattern, 'backup id')}`;

  private async idsOf(filename: string) {
    return (await this.bucket.find({ filename }, { projection: { _id: 1 } }).toArray()).map((f) => f._id);
  }

  async hasBlob(sha256: string): Promise<boolean> {
    return (await this.bucket.find({ filename: this.blobName(sha256) }, { limit: 1 }).toArray()).length > 0;
  }

  async putBlob(sha256: string, content: AsyncIterable<Uint8Array>): Promise<number> {
    const filename = this.blobName(sha256);
    if (await this.hasBlob(sha256)) {
      // Drain the source anyway: the caller's stream must not stall half read.
      await pipeline(Readable.from(content), new Writable({ write: (_chunk, _enc, done) => done() }));
      return 0;
    }
    const upload = this.bucket.openUploadStream(filename, { metadata: { destinationId: this.destinationId } });
    const size = counting();
    try {
      await pipeline(Readable.from(content), verifying(sha256), new BlobEncoder(), size, upload);
    } catch (e) {
      await upload.abort().catch(() => undefined);
      throw e;
    }
    return size.bytes;
  }

  readBlob(sha256: string): Readable {
    const out = new PassThrough();
    pipeline(this.bucket.openDownloadStreamByName(this.blobName(sha256)), new BlobDecoder(), verifying(sha256), out).catch((e: unknown) => out.destroy(e as Error));
    return out;
  }

  async deleteBlob(sha256: string): Promise<void> {
    for (const id of await this.idsOf(this.blobName(sha256))) await this.bucket.delete(id).catch(() => undefined);
  }

  private async *namesUnder(kind: 'blobs' | 'manifests'): AsyncIterable<string> {
    const prefix = `${this.area}/${kind}/`;
    const seen = new Set<string>();
    const cursor = this.bucket.find({ filename: { $regex: `^${escapeRegex(prefix)}` } }, { projection: { filename: 1 }, sort: { filename: 1 } });
    for await (const file of cursor) {
      const name = file.filename.slice(prefix.length);
      if (seen.has(name)) continue;
      seen.add(name);
      yield name;
    }
  }

  async *listBlobs(): AsyncIterable<string> {
    for await (const name of this.namesUnder('blobs')) if (shaPattern.test(name)) yield name;
  }

  async putManifest(manifest: BackupManifest): Promise<void> {
    const filename = this.manifestName(manifest.backupId);
    const older = await this.idsOf(filename);
    const upload = this.bucket.openUploadStream(filename, { metadata: { destinationId: this.destinationId } });
    await pipeline(Readable.from([Buffer.from(JSON.stringify(manifest))]), createGzip(), upload);
    for (const id of older) await this.bucket.delete(id).catch(() => undefined);
  }

  async readManifest(backupId: string): Promise<BackupManifest | undefined> {
    const filename = this.manifestName(backupId);
    if ((await this.idsOf(filename)).length === 0) return undefined;
    const parts: Buffer[] = [];
    await pipeline(this.bucket.openDownloadStreamByName(filename), createGunzip(), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) parts.push(chunk);
    });
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as BackupManifest;
  }

  async deleteManifest(backupId: string): Promise<void> {
    for (const id of await this.idsOf(this.manifestName(backupId))) await this.bucket.delete(id).catch(() => undefined);
  }

  async *listManifests(): AsyncIterable<string> {
    for await (const name of this.namesUnder('manifests')) if (idPattern.test(name)) yield name;
  }
}
