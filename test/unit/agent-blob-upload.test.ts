import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { uploadBlob } from '../../src/agent/transfers/blob-upload.js';
import { failureOf } from '../support/agent-failure.js';
import { waitFor } from '../support/wait-for.js';

const mib = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const chunks = (b: Buffer, size = mib) => Readable.from(Array.from({ length: Math.ceil(b.length / size) }, (_, i) => b.subarray(i * size, (i + 1) * size)));
const checksumOf = (b: Buffer) => createHash('sha256').update(b).digest('base64');

interface Put {
  path: string;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

describe('agent: uploading a blob to presigned part URLs', function () {
  this.timeout(30_000);
  let server: Server;
  let base: string;
  let puts: Put[];
  const urls = (n: number) => Array.from({ length: n }, (_, i) => `${base}/bucket/key/p${i + 1}?X-Amz-Signature=sig`);
  const never = () => new AbortController().signal;

  before(async () => {
    server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://store').pathname;
        puts.push({ path, body: Buffer.concat(parts), headers: req.headers });
        // A 403 (not retried) is how the store's refusal is played.
        if (path.startsWith('/refuse/')) {
          res.writeHead(403, { 'content-type': 'application/xml' });
          return res.end('<Error><Code>AccessDenied</Code></Error>');
        }
        res.writeHead(req.method === 'PUT' ? 200 : 405, { etag: `"etag-${path.split('/').pop()}"` });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    puts = [];
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends a file in one PUT as it is, with the checksum and the mark it was presigned with', async () => {
    const content = Buffer.from('a line of a server log that repeats\n'.repeat(5_000));
    const uploaded = await uploadBlob(chunks(content, 10_000), { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(1) }, never());
    expect(puts.map((p) => p.path)).to.deep.equal(['/bucket/key/p1']);
    // The file's own bytes: the store can check them against the sha256 the Controller signed.
    expect(puts[0].body.equals(content)).to.equal(true);
    expect(puts[0].headers).to.deep.include({
      'content-length': String(content.length), 'x-amz-checksum-sha256': checksumOf(content), 'x-amz-meta-cairn-encoding': 'identity',
    });
    expect(uploaded).to.deep.equal({ storedBytes: content.length, etags: ['"etag-p1"'] });
  });

  it('cuts 20 MiB into parts of exactly 8, 8 and the rest MiB, in order, without the whole file\'s checksum', async () => {
    const content = randomBytes(20 * mib);
    const uploaded = await uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(4) }, never());
    expect(puts.map((p) => p.path)).to.deep.equal(['/bucket/key/p1', '/bucket/key/p2', '/bucket/key/p3']);
    expect(puts.map((p) => p.body.length)).to.deep.equal([8 * mib, 8 * mib, 4 * mib]);
    expect(puts.map((p) => p.headers['x-amz-checksum-sha256'])).to.deep.equal([undefined, undefined, undefined]);
    expect(Buffer.concat(puts.map((p) => p.body)).equals(content)).to.equal(true);
    expect(uploaded).to.deep.equal({ storedBytes: 20 * mib, etags: ['"etag-p1"', '"etag-p2"', '"etag-p3"'] });
  });

  it('sends no empty last part when the file is an exact number of parts', async () => {
    const partBytes = 256 * 1024;
    const content = randomBytes(2 * partBytes);
    const uploaded = await uploadBlob(chunks(content, 100_000), { sha256: sha256(content), partBytes, partUrls: urls(3) }, never());
    expect(puts.map((p) => p.body.length)).to.deep.equal([partBytes, partBytes]);
    expect(uploaded.etags).to.deep.equal(['"etag-p1"', '"etag-p2"']);
    expect(Buffer.concat(puts.map((p) => p.body)).equals(content)).to.equal(true);
  });

  it('sends a full part while the rest of the file is still being read', async () => {
    const content = randomBytes(12 * mib);
    const source = new PassThrough();
    const upload = uploadBlob(source, { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(2) }, never());
    source.write(content.subarray(0, 9 * mib));
    // The source is held open: the first part can only come from what was read so far.
    await waitFor(() => puts.length === 1, { what: 'the first part before the end of the file' });
    expect(puts[0].body.length).to.equal(8 * mib);
    source.end(content.subarray(9 * mib));
    expect((await upload).storedBytes).to.equal(12 * mib);
    expect(puts.map((p) => p.body.length)).to.deep.equal([8 * mib, 4 * mib]);
    // One URL is a whole-object PUT: a first part with more to follow is refused before it is sent.
    const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(1) }, never()));
    expect(error.code).to.equal('TOO_LARGE');
    expect(puts).to.have.length(2);
  });

  it('sends nothing at all when a single-part file does not match its sha256', async () => {
    const content = randomBytes(100_000);
    const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(Buffer.from('other')), partBytes: 8 * mib, partUrls: urls(1) }, never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    expect(error.message).to.include(sha256(content));
    expect(puts).to.have.length(0);
  });

  it('never sends the last part of a multipart file that does not match its sha256', async () => {
    const content = randomBytes(20 * mib);
    const error = await failureOf(uploadBlob(chunks(content), { sha256: 'f'.repeat(64), partBytes: 8 * mib, partUrls: urls(3) }, never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    // Three parts are needed; the full ones may go, the one that would let the upload complete may not.
    expect(puts.length).to.be.lessThan(3);
    expect(puts.map((p) => p.path)).not.to.include('/bucket/key/p3');
  });

  it('refuses a file that needs more parts than it was given URLs as TOO_LARGE', async () => {
    const content = randomBytes(20 * mib);
    const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(2) }, never()));
    expect(error.code).to.equal('TOO_LARGE');
    expect(error.message).to.include('2 parts');
    // The second full part would leave no URL for the rest: it is not sent.
    expect(puts.map((p) => p.path)).to.deep.equal(['/bucket/key/p1']);
  });

  it('refuses as TOO_LARGE while still reading when the parts run out early', async () => {
    const content = randomBytes(30 * mib);
    const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 8 * mib, partUrls: urls(1) }, never()));
    expect(error.code).to.equal('TOO_LARGE');
    expect(puts).to.have.length(0);
  });

  it('stores an empty file as one empty PUT', async () => {
    const empty = Buffer.alloc(0);
    const uploaded = await uploadBlob(Readable.from([]), { sha256: sha256(empty), partBytes: 8 * mib, partUrls: urls(1) }, never());
    expect(puts).to.have.length(1);
    expect(puts[0].body.length).to.equal(0);
    expect(puts[0].headers['x-amz-checksum-sha256']).to.equal(checksumOf(empty));
    expect(uploaded).to.deep.equal({ storedBytes: 0, etags: ['"etag-p1"'] });
  });

  it('refuses a part size of 0 or over 256 MiB, or no URLs, as INVALID_REQUEST before reading', async () => {
    const content = Buffer.from('x');
    const tries = [
      { partBytes: 0, partUrls: urls(1) },
      { partBytes: -1, partUrls: urls(1) },
      { partBytes: Number.NaN, partUrls: urls(1) },
      { partBytes: 256 * mib + 1, partUrls: urls(1) },
      { partBytes: 8 * mib, partUrls: [] },
    ];
    for (const parts of tries) {
      const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(content), ...parts }, never()));
      expect(error.code, JSON.stringify(parts)).to.equal('INVALID_REQUEST');
    }
    expect(puts).to.have.length(0);
  });

  it('accepts a part size of exactly 256 MiB', async () => {
    const content = Buffer.from('small');
    const uploaded = await uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 256 * mib, partUrls: urls(1) }, never());
    expect(uploaded.etags).to.deep.equal(['"etag-p1"']);
    expect(puts[0].body.toString()).to.equal('small');
  });

  it('fails with OBJECT_STORE when the store refuses a part, and sends no later part', async () => {
    const content = randomBytes(20 * mib);
    const partUrls = [`${base}/refuse/p1?X-Amz-Signature=sig`, ...urls(3).slice(1)];
    const error = await failureOf(uploadBlob(chunks(content), { sha256: sha256(content), partBytes: 8 * mib, partUrls }, never()));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include('403 AccessDenied');
    expect(puts.map((p) => p.path)).to.deep.equal(['/refuse/p1']);
  });
});
