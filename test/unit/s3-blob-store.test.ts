import { PutObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { accessProblem } from '../../src/controller/services/backups/s3-access-check.js';
import { S3BlobStore } from '../../src/controller/store/s3/s3-blob-store.js';
import { s3ClientFor } from '../../src/controller/store/s3/s3-client.js';
import { ChecksumMismatchError, collectGarbage } from '../../src/shared/backup/blob-store.js';
import { s3rverAccessKeyId, startTestS3, type TestS3 } from '../support/s3-server.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const chunks = (b: Buffer, size = 1024 * 1024) => Readable.from(Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size)));
const readAll = async (stream: Readable) => {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
};
const at = '2026-11-23T00:00:00.000Z';

describe('the S3 blob store (against s3rver)', function () {
  this.timeout(60_000);
  let s3: TestS3;
  let store: S3BlobStore;
  let prefix: string;
  const team = '0190a0a0-0000-7000-8000-000000000001';

  before(async () => {
    s3 = await startTestS3();
  });
  beforeEach(() => {
    prefix = `unit/${randomBytes(4).toString('hex')}`;
    const client = s3ClientFor({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix, accessKeyId: s3rverAccessKeyId, forcePathStyle: true }, 'S3RVER');
    store = new S3BlobStore(client, { bucket: s3.bucket, prefix, teamId: team });
  });
  after(async () => s3.dispose());

  it('keeps a blob under <prefix>/<teamId>/blobs/ once, and reads it back byte for byte', async () => {
    const content = randomBytes(200_000);
    expect(await store.hasBlob(sha256(content))).to.equal(false);
    expect(await store.putBlob(sha256(content), chunks(content))).to.be.greaterThan(100_000);
    expect(await store.hasBlob(sha256(content))).to.equal(true);
    expect(await store.putBlob(sha256(content), chunks(content)), 'a second put adds nothing').to.equal(0);
    expect(await s3.keys(`${prefix}/${team}/blobs/`)).to.deep.equal([`${prefix}/${team}/blobs/${sha256(content)}`]);
    expect((await readAll(store.readBlob(sha256(content)))).equals(content)).to.equal(true);
  });

  it('streams a large blob in parts and stores nothing when its content does not match its name', async () => {
    const large = randomBytes(20 * 1024 * 1024);
    expect(await store.putBlob(sha256(large), chunks(large))).to.be.greaterThan(large.length);
    expect(sha256(await readAll(store.readBlob(sha256(large))))).to.equal(sha256(large));
    const liar = 'f'.repeat(64);
    let error: unknown;
    await store.putBlob(liar, chunks(randomBytes(12 * 1024 * 1024))).catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(ChecksumMismatchError);
    expect(await store.hasBlob(liar)).to.equal(false);
    await store.putBlob(liar, chunks(randomBytes(1000))).catch((e: unknown) => (error = e));
    expect(await store.hasBlob(liar)).to.equal(false);
  });

  it('reads a blob an Agent uploaded as the file\'s own bytes (metadata cairn-encoding: identity) as it is, checked against its name', async () => {
    // A first byte that BlobEncoder would take for its gzip tag: only the metadata tells the object is the file itself.
    const content = Buffer.concat([Buffer.from([0x47]), randomBytes(50_000)]);
    const key = `${prefix}/${team}/blobs/${sha256(content)}`;
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: content, Metadata: { 'cairn-encoding': 'identity' } }));
    expect((await readAll(store.readBlob(sha256(content)))).equals(content)).to.equal(true);
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: randomBytes(50_000), Metadata: { 'cairn-encoding': 'identity' } }));
    const error = await readAll(store.readBlob(sha256(content))).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ChecksumMismatchError);
  });

  it('refuses a damaged blob as it is read', async () => {
    const content = randomBytes(50_000);
    await store.putBlob(sha256(content), chunks(content));
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${team}/blobs/${sha256(content)}`, Body: randomBytes(50_000) }));
    let error: unknown;
    await readAll(store.readBlob(sha256(content))).catch((e: unknown) => (error = e));
    expect(error).to.be.an('error');
  });

  it('keeps manifests, lists them, and collects every blob no manifest references', async () => {
    const [a, b] = [randomBytes(10_000), randomBytes(10_000)];
    await store.putBlob(sha256(a), chunks(a));
    await store.putBlob(sha256(b), chunks(b));
    const entry = (content: Buffer, path: string) => ({ path, type: 'FILE' as const, size: content.length, mode: 0o644, sha256: sha256(content) });
    await store.putManifest({ formatVersion: 1, backupId: 'one', createdAt: at, entries: [entry(a, 'a')] });
    await store.putManifest({ formatVersion: 1, backupId: 'two', createdAt: at, entries: [entry(b, 'b')] });
    expect((await store.readManifest('one'))?.entries).to.deep.equal([entry(a, 'a')]);
    expect(await store.readManifest('three')).to.equal(undefined);
    const manifests: string[] = [];
    for await (const id of store.listManifests()) manifests.push(id);
    expect(manifests.sort()).to.deep.equal(['one', 'two']);
    await store.deleteManifest('two');
    await collectGarbage(store);
    expect(await store.hasBlob(sha256(a))).to.equal(true);
    expect(await store.hasBlob(sha256(b))).to.equal(false);
  });

  it('aborts the multipart uploads of its blobs begun over a day ago (a killed Controller\'s), not younger ones; a server without the call leaves them', async () => {
    // s3rver answers ListMultipartUploads NotImplemented, as some S3-compatible servers do.
    expect(await store.removePartials(0)).to.equal(0);
    const area = `${prefix}/${team}/blobs/`;
    const upload = (name: string, id: string, at: number) => `<Upload><Key>${area}${name.repeat(64)}</Key><UploadId>${id}</UploadId><Initiated>${new Date(at).toISOString()}</Initiated></Upload>`;
    const listing = `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${s3.bucket}</Bucket><IsTruncated>false</IsTruncated>${
      upload('a', 'stale-upload', Date.now() - 25 * 3_600_000)}${upload('b', 'running-upload', Date.now() - 3_600_000)}</ListMultipartUploadsResult>`;
    const from = s3.requests.length;
    // s3rver lacks the call: the front plays S3's listing and its abort.
    const stopListing = s3.refuse({ matches: (r) => r.method === 'GET' && r.query.has('uploads'), status: 200, xml: listing });
    const stopAborts = s3.refuse({ matches: (r) => r.method === 'DELETE' && r.query.has('uploadId'), status: 204, xml: '' });
    try {
      expect(await store.removePartials(0)).to.equal(1);
    } finally {
      stopListing();
      stopAborts();
    }
    const seen = s3.requests.slice(from);
    expect(seen.find((r) => r.query.has('uploads'))?.query.get('prefix')).to.equal(area);
    expect(seen.filter((r) => r.method === 'DELETE').map((r) => [r.path, r.query.get('uploadId')])).to.deep.equal([[`/${s3.bucket}/${area}${'a'.repeat(64)}`, 'stale-upload']]);
  });

  describe('looking up many blobs at once', () => {
    const sha = (digit: string) => digit.repeat(64);
    const heads = (from: number) => s3.requests.slice(from).filter((r) => r.method === 'HEAD').length;
    const lists = (from: number) => s3.requests.slice(from).filter((r) => r.method === 'GET' && r.query.get('list-type') === '2');
    const put = (name: string) => s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${team}/blobs/${name}`, Body: 'x' }));

    it('answers every blob of an area listed whole from one listing, without a HEAD', async () => {
      await Promise.all(['1', '4', '7'].map((d) => put(sha(d))));
      const from = s3.requests.length;
      const lookup = await store.blobLookup([sha('1'), sha('2'), sha('7'), sha('f')]);
      const answers = await Promise.all([sha('1'), sha('2'), sha('7'), sha('f')].map((s) => lookup.hasBlob(s)));
      expect(answers).to.deep.equal([true, false, true, false]);
      expect(lists(from).map((r) => r.query.get('prefix'))).to.deep.equal([`${prefix}/${team}/blobs/`]);
      expect(heads(from)).to.equal(0);
    });

    it('lists at most ten keys per blob asked about, and asks one HEAD each for the blobs after the last key listed', async () => {
      const client = s3ClientFor({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix, accessKeyId: s3rverAccessKeyId, forcePathStyle: true }, 'S3RVER');
      const paged = new S3BlobStore(client, { bucket: s3.bucket, prefix, teamId: team, pageSize: 10 });
      await Promise.all(['3', '9'].map((d) => put(sha(d))));
      const area = `${prefix}/${team}/blobs/`;
      // s3rver cannot page here: the front plays two truncated pages, ending at 5… and at 8…, as a larger area would give.
      const page = (digits: string[], token: string) => `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${s3.bucket}</Name><Prefix>${area}</Prefix><KeyCount>${digits.length}</KeyCount><MaxKeys>10</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>${token}</NextContinuationToken>${
        digits.map((d) => `<Contents><Key>${area}${sha(d)}</Key><Size>1</Size></Contents>`).join('')}</ListBucketResult>`;
      const stopFirst = s3.refuse({ matches: (r) => r.query.get('list-type') === '2' && !r.query.has('continuation-token'), status: 200, xml: page(['3', '5'], 'next-1') });
      const stopSecond = s3.refuse({ matches: (r) => r.query.get('continuation-token') === 'next-1', status: 200, xml: page(['8'], 'next-2') });
      const from = s3.requests.length;
      try {
        const lookup = await paged.blobLookup([sha('2'), sha('3')]);
        expect(await lookup.hasBlob(sha('3'))).to.equal(true);
        expect(await lookup.hasBlob(sha('6')), 'not listed before 8…: not stored').to.equal(false);
        expect(await lookup.hasBlob(sha('8'))).to.equal(true);
        expect(heads(from)).to.equal(0);
        expect(await lookup.hasBlob(sha('9')), 'after the last key listed: asked with a HEAD').to.equal(true);
        expect(await lookup.hasBlob(sha('a'))).to.equal(false);
      } finally {
        stopFirst();
        stopSecond();
      }
      expect(lists(from).length, 'two blobs asked about: 20 keys, two pages of 10').to.equal(2);
      expect(heads(from)).to.equal(2);
    });

    it('asks a HEAD for each blob when the key may not list the bucket', async () => {
      await put(sha('c'));
      const stop = s3.refuse({ matches: (r) => r.query.get('list-type') === '2', status: 403, code: 'AccessDenied' });
      const from = s3.requests.length;
      try {
        const lookup = await store.blobLookup([sha('c'), sha('d')]);
        expect([await lookup.hasBlob(sha('c')), await lookup.hasBlob(sha('d'))]).to.deep.equal([true, false]);
      } finally {
        stop();
      }
      expect(heads(from)).to.equal(2);
    });
  });
});

describe('what an S3 access check says failed', () => {
  const where = { bucket: 'b', endpoint: 'http://s3.test' };
  const detail = (e: unknown) => accessProblem(e, 'write', where).detail;

  it('names the field to mend after S3\'s code', () => {
    expect(detail({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } })).to.match(/^body\.secretAccessKey: S3 refused the credentials \(SignatureDoesNotMatch\)/);
    expect(detail({ name: 'InvalidAccessKeyId', $metadata: { httpStatusCode: 403 } })).to.match(/^body\.accessKeyId: /);
    expect(detail({ name: 'NoSuchBucket', $metadata: { httpStatusCode: 404 } })).to.match(/^body\.bucket: no such bucket b/);
    expect(detail({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } })).to.match(/^body\.accessKeyId: S3 denied the write .*s3:ListBucket/);
    expect(detail({ name: 'AuthorizationHeaderMalformed', $metadata: { httpStatusCode: 400 } })).to.match(/^body\.region: /);
    expect(detail({ name: 'TimeoutError' })).to.match(/^body\.endpoint: no answer from http:\/\/s3\.test within 10 s/);
    expect(detail(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).to.equal('body.endpoint: could not connect to http://s3.test (ECONNREFUSED).');
    expect(detail({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } })).to.equal('body.endpoint: the write of a test object failed: S3 answered 503 SlowDown.');
  });

});
