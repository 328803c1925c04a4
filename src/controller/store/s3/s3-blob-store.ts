import { counting } from '../counting-stream.js';
import {
  AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, PutObjectCommand,
  type ListMultipartUploadsCommandOutput, type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobDecoder, BlobEncoder, shaPattern, verifying } from '../../../shared/backup/blob-encoding.js';
import type { BlobLookup, BlobStore } from '../../../shared/backup/blob-store.js';
import type { BackupManifest } from '../../../shared/backup/manifest.js';
import type { DirectBlobs, UploadPlan } from '../direct-blobs.js';
import { encodingMetadata, presignDownload, presignUpload } from './s3-presigned.js';
import { S3Presigner } from './s3-presigner.js';

const idPattern = /^[A-Za-z0-9-]{1,100}$/;

function checked(value: string, pattern: RegExp, what: string): string {
  if (!pattern.test(value)) throw new Error(`not a ${what}: ${value.slice(0, 80)}`);
  return value;
}

/** S3 answered that the object (or, for HeadObject, anything at that key) is not there. */
export function isMissing(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
}

/**
 * The server does not have the call (s3rver and some S3-compatible servers lack
 * ListMultipartUploads), or the key may not make it: garbage collection goes on without it.
 */
function isUnavailableCall(e: unknown): boolean {
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (e as { name?: string }).name === 'NotImplemented' || status === 501 || status === 403;
}

/**
 * A multipart upload begun this long ago belongs to no backup still under way: a file's transfer
 * is given up after a minute plus the file at 5 MB/s, so a day covers files up to ~430 GB. Its
 * start, not its last part, is all S3 tells.
 */
const staleUploadMs = 24 * 60 * 60_000;

/**
 * Keys a blob lookup lists per blob it is asked about, at most: a listing page of 1,000 keys costs
 * one request (priced like a PUT on S3, 12 times a HEAD), so listing ten keys per blob costs less
 * than a HEAD each, in requests and in the Controller's CPU, and an area far larger than the
 * backup is not listed whole.
 */
const listedKeysPerBlob = 10;

/** Parts of a multipart upload: a blob under this size goes in one PutObject. */
const partBytes = 8 * 1024 * 1024;

export interface S3Area {
  bucket: string;
  /** The destination's prefix, without leading or trailing `/`; empty for the bucket's root. */
  prefix: string;
  /** A team's area (`<prefix>/<teamId>/`); undefined for the destination's root. */
  teamId?: string;
  /** Keys per ListObjectsV2 page. */
  pageSize?: number;
}

/**
 * One area of an S3 destination's content-addressed store: blobs at `<area>/blobs/<sha256>`
 * (BlobEncoder as on every store when the Controller carried them; the file's own bytes, marked
 * `x-amz-meta-cairn-encoding: identity`, when an Agent uploaded them) and manifests at `<area>/manifests/<backupId>.json`. Agents
 * move blobs themselves with requests this store presigns (`planUpload`, `downloadUrl`);
 * `putBlob` and `readBlob` carry them through the Controller for Agents that cannot. There a blob
 * streams into S3 as it is read (multipart above 8 MiB, never held whole); S3 shows an object
 * only once its upload completes, so a cut-off upload never appears under its name, and a failed
 * multipart upload is aborted (a Controller killed mid-upload leaves parts only a bucket
 * lifecycle rule removes; see docs/backups.md).
 */
export class S3BlobStore implements BlobStore, DirectBlobs {
  private readonly area: string;
  private readonly bucket: string;
  private readonly pageSize: number;
  private readonly presigner: S3Presigner;

  constructor(private readonly client: S3Client, where: S3Area) {
    this.bucket = where.bucket;
    this.presigner = new S3Presigner(client, where.bucket);
    this.pageSize = where.pageSize ?? 1000;
    this.area = [where.prefix, where.teamId === undefined ? undefined : checked(where.teamId, idPattern, 'team id')].filter(Boolean).join('/');
  }

  private key(kind: 'blobs' | 'manifests', name: string): string {
    return this.area ? `${this.area}/${kind}/${name}` : `${kind}/${name}`;
  }

  private blobKey = (sha256: string) => this.key('blobs', checked(sha256, shaPattern, 'sha256'));
  private manifestKey = (backupId: string) => this.key('manifests', `${checked(backupId, idPattern, 'backup id')}.json`);

  async hasBlob(sha256: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  /**
   * Lists the area's blobs, in key order, for at most `listedKeysPerBlob` keys per blob asked about;
   * a blob at or before the last key listed is answered from the listing, one after it with a
   * HEAD. S3 lists in key order and strongly consistent, so the listing is as good as a HEAD for
   * what it covers. A listing refused (a key without s3:ListBucket) leaves every blob to its HEAD.
   */
  async blobLookup(sha256s: readonly string[]): Promise<BlobLookup> {
    const prefix = this.key('blobs', '');
    const pages = Math.ceil((sha256s.length * listedKeysPerBlob) / this.pageSize);
    const listed = new Set<string>();
    let coveredTo = '';
    let complete = false;
    try {
      let token: string | undefined;
      for (let page = 0; page < pages && !complete; page++) {
        const answer = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: this.pageSize, ContinuationToken: token }));
        for (const object of answer.Contents ?? []) {
          if (!object.Key) continue;
          listed.add(object.Key.slice(prefix.length));
          coveredTo = object.Key.slice(prefix.length);
        }
        complete = !answer.IsTruncated;
        token = answer.NextContinuationToken;
      }
    } catch {
      return this;
    }
    return {
      hasBlob: (sha256) => (complete || sha256 <= coveredTo ? Promise.resolve(listed.has(sha256)) : this.hasBlob(sha256)),
    };
  }

  async putBlob(sha256: string, content: AsyncIterable<Uint8Array>): Promise<number> {
    const key = this.blobKey(sha256);
    if (await this.hasBlob(sha256)) {
      // Drain the source anyway: the caller's stream must not stall half read.
      await pipeline(Readable.from(content), new Writable({ write: (_chunk, _enc, done) => done() }));
      return 0;
    }
    const body = new PassThrough();
    const size = counting();
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body }, partSize: partBytes, queueSize: 2 });
    // A mismatch fails the body before its end, so S3 never completes the object.
    const feeding = pipeline(Readable.from(content), verifying(sha256), new BlobEncoder(), size, body);
    try {
      await Promise.all([feeding, upload.done()]);
    } catch (e) {
      body.destroy();
      await upload.abort().catch(() => undefined);
      throw e;
    }
    return size.bytes;
  }

  planUpload(sha256: string, sizeBytes: number, expiresInSeconds: number): Promise<UploadPlan> {
    return presignUpload(this.client, this.presigner, this.bucket, this.blobKey(sha256), sha256, sizeBytes, expiresInSeconds);
  }

  downloadUrl(sha256: string, expiresInSeconds: number): Promise<string> {
    return presignDownload(this.presigner, this.blobKey(sha256), expiresInSeconds);
  }

  readBlob(sha256: string): Readable {
    const out = new PassThrough();
    this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }))
      .then((answer) => {
        const asUploaded = answer.Metadata?.['cairn-encoding'] === encodingMetadata['cairn-encoding'];
        return asUploaded ? pipeline(answer.Body as Readable, verifying(sha256), out) : pipeline(answer.Body as Readable, new BlobDecoder(), verifying(sha256), out);
      })
      .catch((e: unknown) => out.destroy(e as Error));
    return out;
  }

  async deleteBlob(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.blobKey(sha256) }));
  }

  /**
   * Aborts the multipart uploads of this area's blobs begun more than `idleMs` (and at least a
   * day) ago: those of a Controller killed mid-backup, which S3 would keep and bill. A server
   * without ListMultipartUploads, or a key without the right to it, leaves them to a bucket
   * lifecycle rule. Answers how many went.
   */
  async removePartials(idleMs: number): Promise<number> {
    const before = Date.now() - Math.max(idleMs, staleUploadMs);
    let removed = 0;
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      let page: ListMultipartUploadsCommandOutput;
      try {
        page = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket, Prefix: this.key('blobs', ''), ...markers }));
      } catch (e) {
        if (isUnavailableCall(e)) return removed;
        throw e;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated.getTime() > before) continue;
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId })).catch((e: unknown) => {
          if (!isMissing(e) && (e as { name?: string }).name !== 'NoSuchUpload') throw e;
        });
        removed++;
      }
      if (!page.IsTruncated) return removed;
      markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
    }
  }

  /** The names under `<area>/<kind>/`, page by page. */
  private async *namesUnder(kind: 'blobs' | 'manifests'): AsyncIterable<string> {
    const prefix = this.key(kind, '');
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: this.pageSize, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key.slice(prefix.length);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async *listBlobs(): AsyncIterable<string> {
    for await (const name of this.namesUnder('blobs')) if (shaPattern.test(name)) yield name;
  }

  async putManifest(manifest: BackupManifest): Promise<void> {
    await this.client.send(new PutObjectCommand({
      Bucket: this.bucket, Key: this.manifestKey(manifest.backupId), Body: JSON.stringify(manifest), ContentType: 'application/json',
    }));
  }

  async readManifest(backupId: string): Promise<BackupManifest | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.manifestKey(backupId) }));
      return JSON.parse(await answer.Body!.transformToString('utf8')) as BackupManifest;
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  }

  async deleteManifest(backupId: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.manifestKey(backupId) }));
  }

  async *listManifests(): AsyncIterable<string> {
    for await (const name of this.namesUnder('manifests')) {
      const id = name.replace(/\.json$/, '');
      if (name.endsWith('.json') && idPattern.test(id)) yield id;
    }
  }
}
