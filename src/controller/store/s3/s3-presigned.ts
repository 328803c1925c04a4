import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand, UploadPartCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { UploadPlan } from '../direct-blobs.js';

const mib = 1024 * 1024;
/** Parts of an upload: a blob that fits in one goes in one PutObject. */
export const presignedPartBytes = 8 * mib;
/** S3 allows this many parts per upload: a larger blob gets larger parts. */
const maxParts = 10_000;

/**
 * The most an encoded blob can take for a file of `size` bytes: stored as it is, one tag byte;
 * gzip, zlib falls back to stored blocks (a few bytes per 64 KiB) where it cannot compress.
 * Generous, since an unused part URL costs nothing.
 */
export const encodedBound = (size: number) => size + Math.ceil(size / 256) + 64 * 1024;

/** The part size and count for a file of `size` bytes. */
export function partLayout(size: number): { partBytes: number; parts: number } {
  const bound = encodedBound(size);
  const partBytes = Math.max(presignedPartBytes, Math.ceil(bound / maxParts / mib) * mib);
  return { partBytes, parts: Math.ceil(bound / partBytes) };
}

/**
 * The presigned requests of one object's upload: one PutObject when it fits in a part, else a
 * multipart upload the Controller creates, whose parts the Agent PUTs and which the Controller
 * completes or aborts. Only ever keys and times: the URLs carry a signature, never the secret.
 */
export async function presignUpload(client: S3Client, bucket: string, key: string, size: number, expiresIn: number): Promise<UploadPlan> {
  const { partBytes, parts } = partLayout(size);
  if (parts === 1) {
    const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn });
    // A single PUT completes by itself, and only with content that matched; nothing is left to drop.
    return { partBytes, urls: [url], complete: async () => undefined, abort: async () => undefined };
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  if (!UploadId) throw new Error('the object store answered CreateMultipartUpload without an upload id');
  const urls: string[] = [];
  for (let n = 1; n <= parts; n++) {
    urls.push(await getSignedUrl(client, new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: n }), { expiresIn }));
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

export function presignDownload(client: S3Client, bucket: string, key: string, expiresIn: number): Promise<string> {
  return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn });
}
