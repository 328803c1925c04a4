import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, createGzip, type Gunzip, type Gzip } from 'node:zlib';
import { ChecksumMismatchError } from './blob-store.js';
import { worthCompressing } from './compressibility.js';

export const shaPattern = /^[0-9a-f]{64}$/;

/** Passes bytes through while hashing them; fails at the end when they are not `expected`. */
export function verifying(expected: string): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const actual = hash.digest('hex');
      done(actual === expected ? null : new ChecksumMismatchError(expected, actual));
    },
  });
}

/** Passes bytes through while hashing and counting them; `sha256` is set once they have all gone by. */
export function hashing(): Transform & { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      t.bytes += chunk.length;
      done(null, chunk);
    },
    flush(done) {
      t.sha256 = hash.digest('hex');
      done();
    },
  }) as Transform & { sha256: string; bytes: number };
  t.sha256 = '';
  t.bytes = 0;
  return t;
}

/** The first byte of a stored blob says how the rest is stored. */
const tags = { raw: 0x52, gzip: 0x47 } as const;
/** How much of a blob is tried before deciding whether compressing it is worth the time. */
const sampleBytes = 64 * 1024;

/**
 * Encodes a blob for storage: gzip (fast level) when a sample of its start would compress by a
 * tenth or more (compressibility.ts), else as it is. Minecraft region files are compressed already, and gzip of
 * incompressible bytes would cost most of a backup's time for nothing.
 */
export class BlobEncoder extends Transform {
  private head: Buffer[] = [];
  private headBytes = 0;
  private decided = false;
  private gzip?: Gzip;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.decided) return this.feed(chunk, done);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < sampleBytes) return done();
    this.feed(this.decide(), done);
  }

  override _flush(done: TransformCallback): void {
    if (!this.decided) {
      this.feed(this.decide(), (e) => (e ? done(e) : this.finish(done)));
      return;
    }
    this.finish(done);
  }

  private decide(): Buffer {
    this.decided = true;
    // A first chunk as large as the sample (the link's 1 MiB) is looked at where it is, not copied.
    const sample = this.head.length === 1 ? this.head[0] : Buffer.concat(this.head);
    this.head = [];
    const compressible = worthCompressing(sample.subarray(0, sampleBytes));
    this.push(Buffer.from([compressible ? tags.gzip : tags.raw]));
    if (compressible) {
      this.gzip = createGzip({ level: 1 });
      this.gzip.on('data', (d: Buffer) => this.push(d));
      // Without a listener a zlib error mid-stream would be uncaught and end the process.
      this.gzip.on('error', (e) => this.destroy(e));
    }
    return sample;
  }

  private feed(chunk: Buffer, done: (e?: Error | null) => void): void {
    if (!this.gzip) {
      if (chunk.length > 0) this.push(chunk);
      return done();
    }
    this.gzip.write(chunk, (e) => done(e ?? null));
  }

  private finish(done: TransformCallback): void {
    if (!this.gzip) return done();
    this.gzip.once('end', () => done());
    this.gzip.once('error', done);
    this.gzip.end();
  }
}

/** Decodes what BlobEncoder stored; an unknown first byte is a damaged blob. */
export class BlobDecoder extends Transform {
  private mode?: 'raw' | 'gzip';
  private gunzip?: Gunzip;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (!this.mode) {
      if (chunk.length === 0) return done();
      const tag = chunk[0];
      if (tag !== tags.raw && tag !== tags.gzip) return done(new Error('damaged blob: unknown encoding'));
      this.mode = tag === tags.gzip ? 'gzip' : 'raw';
      if (this.mode === 'gzip') {
        this.gunzip = createGunzip();
        this.gunzip.on('data', (d: Buffer) => this.push(d));
        // A damaged blob's gzip fails mid-stream: without a listener it would end the process.
        this.gunzip.on('error', (e) => this.destroy(e));
      }
      chunk = chunk.subarray(1);
    }
    if (!this.gunzip) return done(null, chunk);
    this.gunzip.write(chunk, (e) => done(e ?? null));
  }

  override _flush(done: TransformCallback): void {
    if (!this.gunzip) return done();
    this.gunzip.once('end', () => done());
    this.gunzip.once('error', done);
    this.gunzip.end();
  }
}
