import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, type S3Client } from '@aws-sdk/client-s3';
import type { UploadPlan } from '../direct-blobs.js';
import type { S3Presigner } from './s3-presigner.js';

const mib = 1024 * 1024;
/** Parts of an upload: a blob that fits in one goes in one PutObject. */
export const presignedPartBytes = 8 * mib;
/** S3 allows this many parts per upload: a larger blob gets larger parts. */
const maxParts = 10_000;
/** The longest a presigned request stays valid, however large its file. */
export const maxUrlSeconds = 3600;

/**
 * The user metadata (`x-amz-meta-cairn-encoding`) of a blob an Agent uploaded: the file's own
 * bytes, not BlobEncoder's, so that the object's SHA-256 is the one the manifest names and the
 * bucket itself can check it.
 */
export const encodingMetadata = { 'cairn-encoding': 'identity' } as const;

/** The part size and count for a file of `size` bytes, uploaded as it is. */
export function partLayout(size: number): { partBytes: number; parts: number } {
  const partBytes = Math.max(presignedPartBytes, Math.ceil(size / maxParts / mib) * mib);
  return { partBytes, parts: Math.max(1, Math.ceil(size / partBytes)) };
}

/**
 * The presigned requests of one file's upload, bound to its bytes: one PutObject when it fits in a
 * part, signed with the file's exact Content-Length and its SHA-256 (`x-amz-checksum-sha256`,
 * which S3 checks against the body), so the bucket stores nothing but the content the manifest
 * names; else a multipart upload the Controller creates, each part signed with its exact
 * Content-Length, which the Agent PUTs and the Controller completes or aborts. Only ever keys and
 * times: the URLs carry a signature, never the secret, and live at most an hour. Content-Length and
 * the metadata are signed headers the Agent must send as they are: the bucket refuses other bytes.
 */
export async function presignUpload(
  client: S3Client, presigner: S3Presigner, bucket: string, key: string, sha256: string, size: number, expiresIn: number,
): Promise<UploadPlan> {
  const { partBytes, parts } = partLayout(size);
  const lifetime = Math.min(expiresIn, maxUrlSeconds);
  if (parts === 1) {
    const url = await presigner.presign({
      method: 'PUT', operation: 'PutObject', key, expiresIn: lifetime,
      headers: { 'content-length': String(size), 'x-amz-checksum-sha256': Buffer.from(sha256, 'hex').toString('base64'), 'x-amz-meta-cairn-encoding': encodingMetadata['cairn-encoding'] },
    });
    // A single PUT completes by itself, and only with content that matched; nothing is left to drop.
    return { partBytes, urls: [url], complete: async () => undefined, abort: async () => undefined };
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, Metadata: encodingMetadata }));
  if (!UploadId) throw new Error('the object store answered CreateMultipartUpload without an upload id');
  const urls: string[] = [];
  for (let n = 1; n <= parts; n++) {
    const length = n < parts ? partBytes : size - (parts - 1) * partBytes;
    urls.push(await presigner.presign({
      method: 'PUT', operation: 'UploadPart', key, expiresIn: lifetime, query: { partNumber: String(n), uploadId: UploadId }, headers: { 'content-length': String(length) },
    }));
  }
  return {
    partBytes,
    urls,
    async complete(etags) {
      await client.send(new CompleteMultipartUploadCommand({
        Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }));
    },
    async abort() {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }));
    },
  };
}

export function presignDownload(presigner: S3Presigner, key: string, expiresIn: number): Promise<string> {
  return presigner.presign({ method: 'GET', operation: 'GetObject', key, expiresIn: Math.min(expiresIn, maxUrlSeconds) });
}
