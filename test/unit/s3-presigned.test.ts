import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { uploadBlob } from '../../src/agent/transfers/blob-upload.js';
import { s3ClientFor } from '../../src/controller/store/s3/s3-client.js';
import { S3Presigner } from '../../src/controller/store/s3/s3-presigner.js';
import { partLayout, presignDownload, presignUpload } from '../../src/controller/store/s3/s3-presigned.js';
import { s3rverAccessKeyId, startTestS3, type TestS3 } from '../support/s3-server.js';

const mib = 1024 * 1024;
const gib = 1024 * mib;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const collect = async (stream: AsyncIterable<unknown>) => {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
};
const checksumOf = (b: Buffer) => createHash('sha256').update(b).digest('base64');
const query = (url: string) => new URL(url).searchParams;

describe('presigned S3 requests: the part layout', () => {
  it('plans one part of 8 MiB for an empty file, and for one of exactly 8 MiB', () => {
    expect(partLayout(0)).to.deep.equal({ partBytes: 8 * mib, parts: 1 });
    expect(partLayout(8 * mib)).to.deep.equal({ partBytes: 8 * mib, parts: 1 });
  });

  it('cuts a file as it is: 8 MiB and a byte in 2 parts, 20 MiB in 3', () => {
    expect(partLayout(8 * mib + 1)).to.deep.equal({ partBytes: 8 * mib, parts: 2 });
    expect(partLayout(20 * mib)).to.deep.equal({ partBytes: 8 * mib, parts: 3 });
  });

  it('grows the parts of a huge file so it stays within S3s 10,000 parts', () => {
    for (const size of [1, 64 * 1024, 100 * mib, 78 * gib, 200 * gib, 5 * 1024 * gib]) {
      const { partBytes, parts } = partLayout(size);
      expect(parts * partBytes, `${size} bytes`).to.be.at.least(size);
      expect((parts - 1) * partBytes, `${size} bytes`).to.be.lessThan(size);
      expect(parts, `${size} bytes`).to.be.within(1, 10_000);
      expect(partBytes % mib, `${size} bytes`).to.equal(0);
      expect(partBytes, `${size} bytes`).to.be.at.most(5 * gib);
    }
  });
});

describe('presigned S3 requests (against s3rver)', function () {
  this.timeout(60_000);
  let s3: TestS3;
  let prefix: string;
  let client: ReturnType<typeof s3ClientFor>;
  let presigner: S3Presigner;

  before(async () => {
    s3 = await startTestS3();
    // The front checks every presigned request's signature as S3 would (s3rver checks none).
    s3.expectSecret('S3RVER');
    client = s3ClientFor({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix: '', accessKeyId: s3rverAccessKeyId, forcePathStyle: true }, 'S3RVER');
    presigner = new S3Presigner(client, s3.bucket);
  });
  beforeEach(() => {
    prefix = `presigned/${randomBytes(4).toString('hex')}`;
  });
  after(async () => {
    client.destroy();
    await s3.dispose();
  });

  const send = (url: string, body: Buffer, headers: Record<string, string> = {}) => fetch(url, { method: 'PUT', body, headers });
  const put = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
    const res = await send(url, body, headers);
    expect(res.status, await res.clone().text()).to.equal(200);
    await res.arrayBuffer();
    return res.headers.get('etag') ?? '';
  };
  /** The store's answer to a PUT: its status and error code. */
  const refusal = async (url: string, body: Buffer, headers: Record<string, string> = {}) => {
    const res = await send(url, body, headers);
    return `${res.status} ${/<Code>(\w+)<\/Code>/.exec(await res.text())?.[1] ?? ''}`;
  };
  const stored = async (key: string) => collect((await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body as Readable);
  const metadataOf = async (key: string) => (await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }))).Metadata;
  const requestsSince = (from: number) => s3.requests.slice(from);
  const identity = { 'x-amz-meta-cairn-encoding': 'identity' };

  it('presigns one PutObject bound to the file: its exact Content-Length and SHA-256; the bucket takes those bytes only', async () => {
    const key = `${prefix}/small`;
    const content = randomBytes(1000);
    const from = s3.requests.length;
    // A URL asked to live for a week lives an hour.
    const plan = await presignUpload(client, presigner, s3.bucket, key, sha256(content), content.length, 7 * 24 * 3600);
    expect(plan.partBytes).to.equal(8 * mib);
    expect(plan.urls).to.have.length(1);
    const params = query(plan.urls[0]);
    expect(params.get('X-Amz-Expires')).to.equal('3600');
    expect(params.get('X-Amz-SignedHeaders')?.split(';')).to.include.members(['content-length', 'x-amz-checksum-sha256', 'x-amz-meta-cairn-encoding']);
    expect(params.has('partNumber')).to.equal(false);
    expect(requestsSince(from), 'presigning a single PUT asks the store nothing').to.deep.equal([]);

    // What a compromised Node might send under the blob's name is refused, however it is dressed.
    const other = randomBytes(1000);
    expect(await refusal(plan.urls[0], other, { 'x-amz-checksum-sha256': checksumOf(content), ...identity })).to.equal('400 BadDigest');
    expect(await refusal(plan.urls[0], other, { 'x-amz-checksum-sha256': checksumOf(other), ...identity })).to.equal('403 SignatureDoesNotMatch');
    expect(await refusal(plan.urls[0], Buffer.concat([content, other]), { 'x-amz-checksum-sha256': checksumOf(content), ...identity })).to.match(/^(400 BadDigest|403 SignatureDoesNotMatch)$/);
    expect(await refusal(plan.urls[0], content), 'without the signed headers').to.equal('403 SignatureDoesNotMatch');
    expect(await s3.keys(prefix)).to.deep.equal([]);

    await put(plan.urls[0], content, { 'x-amz-checksum-sha256': checksumOf(content), ...identity });
    await plan.complete(['unused']);
    expect((await stored(key)).equals(content)).to.equal(true);
    expect(await metadataOf(key)).to.deep.include({ 'cairn-encoding': 'identity' });
  });

  it('presigns the parts of a multipart upload, each bound to its exact length, which completes into the file', async () => {
    const key = `${prefix}/large`;
    const content = randomBytes(20 * mib);
    const from = s3.requests.length;
    const plan = await presignUpload(client, presigner, s3.bucket, key, sha256(content), content.length, 3600);
    expect(plan.partBytes).to.equal(8 * mib);
    expect(plan.urls).to.have.length(3);
    expect(plan.urls.map((u) => query(u).get('partNumber'))).to.deep.equal(['1', '2', '3']);
    const uploadIds = new Set(plan.urls.map((u) => query(u).get('uploadId')));
    expect(uploadIds.size).to.equal(1);
    expect([...uploadIds][0]).to.be.a('string').and.not.equal('');
    expect(plan.urls.map((u) => query(u).get('X-Amz-Expires'))).to.deep.equal(['3600', '3600', '3600']);
    expect(plan.urls.map((u) => query(u).get('X-Amz-SignedHeaders'))).to.deep.equal(['content-length;host', 'content-length;host', 'content-length;host']);
    const created = requestsSince(from);
    expect(created.map((r) => [r.method, r.query.has('uploads'), r.presigned])).to.deep.equal([['POST', true, false]]);

    const parts = [content.subarray(0, 8 * mib), content.subarray(8 * mib, 16 * mib), content.subarray(16 * mib)];
    // A part of another length than the one presigned is refused.
    expect(await refusal(plan.urls[2], Buffer.concat([parts[2], Buffer.alloc(1)]))).to.equal('403 SignatureDoesNotMatch');
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) etags.push(await put(plan.urls[i], part));
    expect(etags.every((e) => e.length > 0)).to.equal(true);
    await plan.complete(etags);
    expect(sha256(await stored(key))).to.equal(sha256(content));
  });

  it('aborts a multipart upload so that no object is left', async () => {
    const key = `${prefix}/dropped`;
    const plan = await presignUpload(client, presigner, s3.bucket, key, 'a'.repeat(64), 20 * mib, 900);
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
    const url = await presignDownload(presigner, key, 600);
    expect(query(url).get('X-Amz-Expires')).to.equal('600');
    expect(query(await presignDownload(presigner, key, 7 * 24 * 3600)).get('X-Amz-Expires')).to.equal('3600');
    const from = s3.requests.length;
    const res = await fetch(url);
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
    expect(requestsSince(from).map((r) => [r.method, r.path, r.presigned])).to.deep.equal([['GET', `/${s3.bucket}/${key}`, true]]);
  });

  it('takes an upload by the Agent to the URLs it presigned, in one request or in parts', async () => {
    for (const size of [300_000, 20 * mib]) {
      const key = `${prefix}/agent-${size}`;
      const content = randomBytes(size);
      const plan = await presignUpload(client, presigner, s3.bucket, key, sha256(content), content.length, 900);
      const chunks = Readable.from(Array.from({ length: Math.ceil(size / mib) }, (_, i) => content.subarray(i * mib, (i + 1) * mib)));
      const uploaded = await uploadBlob(chunks, { sha256: sha256(content), partBytes: plan.partBytes, partUrls: plan.urls }, new AbortController().signal);
      expect(uploaded.etags).to.have.length(plan.urls.length);
      expect(uploaded.storedBytes).to.equal(content.length);
      await plan.complete(uploaded.etags);
      expect(sha256(await stored(key))).to.equal(sha256(content));
      expect(await metadataOf(key)).to.deep.include({ 'cairn-encoding': 'identity' });
    }
  });
});
