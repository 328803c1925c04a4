import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { uploadBlob } from '../../src/agent/operations/blob-upload.js';
import { s3ClientFor } from '../../src/controller/store/s3/s3-client.js';
import { encodedBound, partLayout, presignDownload, presignUpload, presignedPartBytes } from '../../src/controller/store/s3/s3-presigned.js';
import { BlobDecoder, BlobEncoder } from '../../src/shared/backup/blob-encoding.js';
import { s3rverAccessKeyId, startTestS3, type TestS3 } from '../support/s3-server.js';

const mib = 1024 * 1024;
const gib = 1024 * mib;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const collect = async (stream: AsyncIterable<unknown>) => {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
};
const encode = (content: Buffer) => collect(Readable.from([content]).pipe(new BlobEncoder()));
const decode = (blob: Buffer) => collect(Readable.from([blob]).pipe(new BlobDecoder()));
const query = (url: string) => new URL(url).searchParams;

describe('presigned S3 requests: the part layout', () => {
  it('plans one part of 8 MiB for an empty file', () => {
    expect(partLayout(0)).to.deep.equal({ partBytes: 8 * mib, parts: 1 });
  });

  it('keeps a file just under a part in one part', () => {
    expect(partLayout(8 * mib - 100 * 1024)).to.deep.equal({ partBytes: 8 * mib, parts: 1 });
  });

  it('cuts 20 MiB into 3 parts of 8 MiB', () => {
    expect(partLayout(20 * mib)).to.deep.equal({ partBytes: 8 * mib, parts: 3 });
  });

  it('grows the parts of a huge file so it stays within S3s 10,000 parts', () => {
    const { partBytes, parts } = partLayout(200 * gib);
    expect(partBytes).to.be.greaterThan(presignedPartBytes);
    expect(partBytes % mib).to.equal(0);
    expect(parts).to.be.at.most(10_000);
    expect(parts * partBytes).to.be.at.least(encodedBound(200 * gib));
  });

  it('always has room for the encoded bound, in at most 10,000 parts', () => {
    for (const size of [1, 64 * 1024, 8 * mib, 8 * mib + 1, 100 * mib, 78 * gib, 5 * 1024 * gib]) {
      const { partBytes, parts } = partLayout(size);
      expect(parts * partBytes, `${size} bytes`).to.be.at.least(encodedBound(size));
      expect(parts, `${size} bytes`).to.be.within(1, 10_000);
      expect(partBytes, `${size} bytes`).to.be.at.most(5 * gib);
    }
  });

  it('bounds the gzip of incompressible bytes, with its tag byte', () => {
    const random = randomBytes(mib);
    expect(gzipSync(random, { level: 1 }).length + 1).to.be.at.most(encodedBound(mib));
  });

  it('bounds what BlobEncoder stores when only the start of a file compresses', async () => {
    // The sample decides gzip; the random rest then costs gzip's stored-block overhead.
    const content = Buffer.concat([Buffer.alloc(64 * 1024), randomBytes(4 * mib)]);
    const blob = await encode(content);
    expect(blob[0]).to.equal(0x47);
    expect(blob.length).to.be.greaterThan(content.length - 64 * 1024);
    expect(blob.length).to.be.at.most(encodedBound(content.length));
  });
});

describe('presigned S3 requests (against s3rver)', function () {
  this.timeout(60_000);
  let s3: TestS3;
  let prefix: string;
  let client: ReturnType<typeof s3ClientFor>;

  before(async () => {
    s3 = await startTestS3();
    // The front checks every presigned request's signature as S3 would (s3rver checks none).
    s3.expectSecret('S3RVER');
    client = s3ClientFor({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix: '', accessKeyId: s3rverAccessKeyId, forcePathStyle: true }, 'S3RVER');
  });
  beforeEach(() => {
    prefix = `presigned/${randomBytes(4).toString('hex')}`;
  });
  after(async () => {
    client.destroy();
    await s3.dispose();
  });

  const put = async (url: string, body: Buffer) => {
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status, await res.clone().text()).to.equal(200);
    await res.arrayBuffer();
    return res.headers.get('etag') ?? '';
  };
  const stored = async (key: string) => collect((await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body as Readable);
  const requestsSince = (from: number) => s3.requests.slice(from);

  it('presigns one PutObject without a checksum for a small file, and it stores the blob', async () => {
    const key = `${prefix}/small`;
    const from = s3.requests.length;
    const plan = await presignUpload(client, s3.bucket, key, 1000, 900);
    expect(plan.partBytes).to.equal(8 * mib);
    expect(plan.urls).to.have.length(1);
    const params = query(plan.urls[0]);
    // A checksum in the signature would bind the URL to bytes the Controller never saw.
    expect([...params.keys()].filter((k) => /checksum/i.test(k))).to.deep.equal([]);
    expect(params.get('X-Amz-Expires')).to.equal('900');
    expect(params.has('partNumber')).to.equal(false);
    expect(requestsSince(from), 'presigning a single PUT asks the store nothing').to.deep.equal([]);

    const content = randomBytes(1000);
    const blob = await encode(content);
    await put(plan.urls[0], blob);
    await plan.complete(['unused']);
    const seen = requestsSince(from);
    expect(seen.map((r) => [r.method, r.path, r.presigned])).to.deep.equal([['PUT', `/${s3.bucket}/${key}`, true]]);
    expect((await stored(key)).equals(blob)).to.equal(true);
  });

  it('presigns the parts of a multipart upload, which completes into their concatenation', async () => {
    const key = `${prefix}/large`;
    const from = s3.requests.length;
    const plan = await presignUpload(client, s3.bucket, key, 20 * mib, 3600);
    expect(plan.partBytes).to.equal(8 * mib);
    expect(plan.urls).to.have.length(3);
    expect(plan.urls.map((u) => query(u).get('partNumber'))).to.deep.equal(['1', '2', '3']);
    const uploadIds = new Set(plan.urls.map((u) => query(u).get('uploadId')));
    expect(uploadIds.size).to.equal(1);
    expect([...uploadIds][0]).to.be.a('string').and.not.equal('');
    expect(plan.urls.map((u) => query(u).get('X-Amz-Expires'))).to.deep.equal(['3600', '3600', '3600']);
    const created = requestsSince(from);
    expect(created.map((r) => [r.method, r.query.has('uploads'), r.presigned])).to.deep.equal([['POST', true, false]]);

    const content = randomBytes(20 * mib);
    const blob = await encode(content);
    const parts = [blob.subarray(0, 8 * mib), blob.subarray(8 * mib, 16 * mib), blob.subarray(16 * mib)];
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) etags.push(await put(plan.urls[i], part));
    expect(etags.every((e) => e.length > 0)).to.equal(true);
    await plan.complete(etags);
    expect(sha256(await stored(key))).to.equal(sha256(blob));
    expect(sha256(await decode(await stored(key)))).to.equal(sha256(content));
  });

  it('aborts a multipart upload so that no object is left', async () => {
    const key = `${prefix}/dropped`;
    const plan = await presignUpload(client, s3.bucket, key, 20 * mib, 900);
    const uploadId = query(plan.urls[0]).get('uploadId');
    await put(plan.urls[0], randomBytes(8 * mib));
    const from = s3.requests.length;
    // s3rver has no AbortMultipartUpload (it answers 405), so the front answers S3's 204 for it.
    const stop = s3.refuse({ matches: (r) => r.method === 'DELETE' && r.query.has('uploadId'), status: 204, code: 'unused', times: 1 });
    try {
      await plan.abort();
    } finally {
      stop();
    }
    expect(requestsSince(from).map((r) => [r.method, r.path, r.query.get('uploadId'), r.presigned])).to.deep.equal([['DELETE', `/${s3.bucket}/${key}`, uploadId, false]]);
    expect(await s3.keys(prefix)).to.deep.equal([]);
    let missing: unknown;
    await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).catch((e: unknown) => (missing = e));
    expect((missing as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode).to.equal(404);
  });

  it('presigns a GET that answers the stored bytes', async () => {
    const key = `${prefix}/read`;
    const bytes = randomBytes(300_000);
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: bytes }));
    const url = await presignDownload(client, s3.bucket, key, 600);
    expect(query(url).get('X-Amz-Expires')).to.equal('600');
    const from = s3.requests.length;
    const res = await fetch(url);
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
    expect(requestsSince(from).map((r) => [r.method, r.path, r.presigned])).to.deep.equal([['GET', `/${s3.bucket}/${key}`, true]]);
  });

  it('takes an upload by the Agent to the URLs it presigned', async () => {
    const key = `${prefix}/agent`;
    const content = randomBytes(20 * mib);
    const plan = await presignUpload(client, s3.bucket, key, content.length, 900);
    const chunks = Readable.from(Array.from({ length: 20 }, (_, i) => content.subarray(i * mib, (i + 1) * mib)));
    const uploaded = await uploadBlob(chunks, { sha256: sha256(content), partBytes: plan.partBytes, partUrls: plan.urls }, new AbortController().signal);
    expect(uploaded.etags).to.have.length(3);
    expect(uploaded.storedBytes).to.equal(content.length + 1);
    await plan.complete(uploaded.etags);
    expect(sha256(await decode(await stored(key)))).to.equal(sha256(content));
  });
});
