import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fetchIntoStage } from '../../src/agent/transfers/stage-fetch.js';
import { StageFiles, type StageChunk } from '../../src/agent/transfers/stage-files.js';
import { BlobEncoder } from '../../src/shared/backup/blob-encoding.js';
import { maxChunkBytes } from '../../src/shared/link/messages.js';
import { failureOf } from '../support/agent-failure.js';
import { tempDirPerTest } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const mib = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const encode = async (content: Buffer) => {
  const parts: Buffer[] = [];
  for await (const chunk of Readable.from([content]).pipe(new BlobEncoder())) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
};
/** Text that gzip shrinks a lot yet that is not one repeated block (so every piece of it differs). */
const compressible = (bytes: number) => {
  const lines: string[] = [];
  for (let n = 0, length = 0; length < bytes; n++) {
    const line = `[12:00:${String(n % 60).padStart(2, '0')}] [Server thread/INFO]: player${n % 97} moved to ${n * 7} ${n % 13}\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
};

/** Stage files that remember the size of every chunk written, to see how the blob was cut. */
class RecordingStageFiles extends StageFiles {
  readonly chunkSizes: number[] = [];

  override async write(chunk: StageChunk): Promise<void> {
    this.chunkSizes.push(chunk.data.length);
    return super.write(chunk);
  }
}

describe('agent: fetching a stage file from an object store', function () {
  this.timeout(30_000);
  const temp = tempDirPerTest('cairn-stage-fetch-');
  let server: Server;
  let base: string;
  /** Objects by path; a path mapped to a function answers however the test needs. */
  const objects = new Map<string, Buffer | ((res: ServerResponse) => void)>();
  let files: RecordingStageFiles;
  const filesDir = () => join(temp(), 'files');
  const incomingDir = () => join(temp(), 'incoming');
  const never = () => new AbortController().signal;
  /** Serves `blob` and answers the fetch input of `content` at `path` (its right checksum and size unless told). */
  const offer = (path: string, blob: Buffer, content: Buffer, over: { sha256?: string; size?: number; mode?: number } = {}) => {
    objects.set(`/bucket/${path}`, blob);
    return { path, url: `${base}/bucket/${path}?X-Amz-Signature=sig`, sha256: over.sha256 ?? sha256(content), size: over.size ?? content.length, mode: over.mode ?? 0o644 };
  };
  const nothingLeft = async () => {
    expect(await readdir(filesDir(), { recursive: true }), 'the stage files').to.deep.equal([]);
    expect(await readdir(incomingDir()), 'the incoming files').to.deep.equal([]);
  };

  before(async () => {
    server = createServer((req, res) => {
      const object = objects.get(new URL(req.url ?? '/', 'http://store').pathname);
      if (typeof object === 'function') return object(res);
      if (!object) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        return res.end('<Error><Code>NoSuchKey</Code></Error>');
      }
      res.writeHead(200, { 'content-length': String(object.length) });
      res.end(object);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(async () => {
    objects.clear();
    await mkdir(filesDir());
    await mkdir(incomingDir());
    files = new RecordingStageFiles(filesDir(), incomingDir());
  });
  afterEach(async () => {
    await files.discardAll();
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('writes a stored file into the stage with its mode', async () => {
    const content = randomBytes(100_000);
    const blob = await encode(content);
    expect(blob[0]).to.equal(0x52, 'random bytes are stored as they are');
    await fetchIntoStage(files, offer('world/region/r.0.0.mca', blob, content, { mode: 0o640 }), never());
    const target = join(filesDir(), 'world', 'region', 'r.0.0.mca');
    expect((await readFile(target)).equals(content)).to.equal(true);
    expect((await stat(target)).mode & 0o777).to.equal(0o640);
    expect(await readdir(incomingDir())).to.deep.equal([]);
    expect(files.writing).to.equal(0);
  });

  it('writes an empty file from a blob of its tag byte alone', async () => {
    const empty = Buffer.alloc(0);
    const blob = await encode(empty);
    expect(blob.length).to.equal(1);
    await fetchIntoStage(files, offer('empty.txt', blob, empty), never());
    expect((await readFile(join(filesDir(), 'empty.txt'))).length).to.equal(0);
  });

  it('inflates a large gzip blob intact, written in whole chunks of the link size', async () => {
    const content = compressible(3 * mib);
    const blob = await encode(content);
    expect(blob[0]).to.equal(0x47, 'the text is stored gzipped');
    expect(blob.length).to.be.lessThan(content.length / 4);
    await fetchIntoStage(files, offer('logs/latest.log', blob, content), never());
    expect(sha256(await readFile(join(filesDir(), 'logs', 'latest.log')))).to.equal(sha256(content));
    // gunzip answers in small pieces; they are joined into full chunks, then an empty last one.
    expect(files.chunkSizes).to.deep.equal([maxChunkBytes, maxChunkBytes, maxChunkBytes, 0]);
  });

  it('writes a blob an Agent uploaded as the file\'s own bytes (x-amz-meta-cairn-encoding: identity) as it is', async () => {
    const content = Buffer.concat([Buffer.from([0x47]), randomBytes(10_000)]);
    const input = offer('plugins/x.jar', content, content);
    objects.set('/bucket/plugins/x.jar', (res) => {
      res.writeHead(200, { 'content-length': String(content.length), 'x-amz-meta-cairn-encoding': 'identity' });
      res.end(content);
    });
    await fetchIntoStage(files, input, never());
    expect((await readFile(join(filesDir(), 'plugins', 'x.jar'))).equals(content)).to.equal(true);
  });

  it('never writes more than the manifest\'s size: a blob that inflates past it fails there', async () => {
    const content = compressible(3 * mib);
    const error = await failureOf(fetchIntoStage(files, offer('bomb.log', await encode(content), content, { size: 1000 }), never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    expect(files.chunkSizes.reduce((n, b) => n + b, 0)).to.be.at.most(1000);
    const raw = randomBytes(5000);
    objects.set('/bucket/raw.bin', (res) => {
      res.writeHead(200, { 'content-length': String(raw.length), 'x-amz-meta-cairn-encoding': 'identity' });
      res.end(raw);
    });
    const rawError = await failureOf(fetchIntoStage(files, { path: 'raw.bin', url: `${base}/bucket/raw.bin?X-Amz-Signature=sig`, sha256: sha256(raw), size: 100, mode: 0o644 }, never()));
    expect(rawError.code).to.equal('CHECKSUM_MISMATCH');
    expect(files.chunkSizes.reduce((n, b) => n + b, 0)).to.be.at.most(1000);
    await nothingLeft();
  });

  it('refuses content that is not what the manifest says, and leaves nothing of it', async () => {
    const content = randomBytes(50_000);
    const blob = await encode(content);
    const wrongSha = await failureOf(fetchIntoStage(files, offer('a.dat', blob, content, { sha256: sha256(Buffer.from('other')) }), never()));
    expect(wrongSha.code).to.equal('CHECKSUM_MISMATCH');
    await nothingLeft();
    const wrongSize = await failureOf(fetchIntoStage(files, offer('a.dat', blob, content, { size: content.length + 1 }), never()));
    expect(wrongSize.code).to.equal('CHECKSUM_MISMATCH');
    await nothingLeft();
  });

  it('drops an older copy in the stage when the fetched content does not match', async () => {
    await writeFile(join(filesDir(), 'level.dat'), 'an older copy');
    const content = randomBytes(1000);
    const error = await failureOf(fetchIntoStage(files, offer('level.dat', await encode(content), content, { sha256: 'f'.repeat(64) }), never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    await nothingLeft();
  });

  it('refuses a blob with an unknown first byte as damaged', async () => {
    const content = randomBytes(10_000);
    const blob = Buffer.concat([Buffer.from([0x00]), content]);
    const error = await failureOf(fetchIntoStage(files, offer('a.dat', blob, content), never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    expect(error.message).to.include('damaged');
    expect(error.message).to.include('a.dat');
    await nothingLeft();
  });

  it('refuses gzip that does not inflate as damaged', async () => {
    const content = compressible(10_000);
    const blob = Buffer.concat([Buffer.from([0x47]), randomBytes(5_000)]);
    const error = await failureOf(fetchIntoStage(files, offer('a.log', blob, content), never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    expect(error.message).to.include('damaged');
    await nothingLeft();
  });

  it('refuses a cut-short gzip blob as damaged after part of it was written, and leaves nothing', async () => {
    const content = compressible(3 * mib);
    const blob = await encode(content);
    const error = await failureOf(fetchIntoStage(files, offer('a.log', blob.subarray(0, Math.floor(blob.length * 0.8)), content), never()));
    expect(error.code).to.equal('CHECKSUM_MISMATCH');
    expect(error.message).to.include('damaged');
    expect(files.chunkSizes.length, 'full chunks went to the stage before the end').to.be.greaterThan(0);
    await nothingLeft();
    expect(files.writing).to.equal(0);
  });

  it('fails a missing object with OBJECT_STORE, naming the answer', async () => {
    const error = await failureOf(fetchIntoStage(files, { path: 'gone.dat', url: `${base}/bucket/gone?X-Amz-Signature=sig`, sha256: 'f'.repeat(64), size: 1, mode: 0o644 }, never()));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include('404 NoSuchKey');
    expect(error.message).not.to.include('X-Amz-Signature');
    await nothingLeft();
  });

  it('fails with OBJECT_STORE naming the host when the connection drops mid-body, and leaves nothing', async () => {
    const content = randomBytes(3 * mib);
    const blob = await encode(content);
    const input = offer('a.dat', blob, content);
    objects.set('/bucket/a.dat', (res) => {
      res.writeHead(200, { 'content-length': String(blob.length) });
      res.write(blob.subarray(0, 2 * mib), () => res.destroy());
    });
    const error = await failureOf(fetchIntoStage(files, input, never()));
    expect(error.code).to.equal('OBJECT_STORE');
    expect(error.message).to.include(new URL(input.url).host).and.include('broke off');
    await nothingLeft();
    expect(files.writing).to.equal(0);
  });

  it('stops when its signal is aborted mid-body, and leaves nothing', async () => {
    const content = randomBytes(3 * mib);
    const blob = await encode(content);
    const input = offer('a.dat', blob, content);
    // Half the blob, then the answer stalls: only the abort can end the fetch.
    objects.set('/bucket/a.dat', (res) => {
      res.writeHead(200, { 'content-length': String(blob.length) });
      res.write(blob.subarray(0, Math.floor(1.5 * mib)));
    });
    const controller = new AbortController();
    const fetched = fetchIntoStage(files, input, controller.signal).then(() => 'fetched', (e: unknown) => e);
    await waitFor(() => files.chunkSizes.length > 0, { what: 'a first chunk written' });
    controller.abort();
    const outcome = await fetched;
    expect((outcome as Error).name).to.equal('AbortError');
    await nothingLeft();
    expect(files.writing).to.equal(0);
  });
});
