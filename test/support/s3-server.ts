import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver checks the access key id (it knows only this one) but not v4 signatures. */
export const s3rverAccessKeyId = 'S3RVER';

/** A local S3-compatible server on a private ephemeral port, with its own temporary directory and one bucket. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** A client of the test's own, to look at what the Controller stored. */
  client: S3Client;
  /** Every key under `prefix` (the tests keep under 1,000: s3rver cannot page on this Node's OpenSSL). */
  keys(prefix: string): Promise<string[]>;
  dispose(): Promise<void>;
}

export async function startTestS3(bucket = 'cairn-backups'): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'cairn-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: s3rverAccessKeyId, secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint, bucket, client,
    async keys(prefix) {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (page.Contents ?? []).map((o) => o.Key ?? '');
    },
    async dispose() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
