import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { worthCompressing } from '../../src/shared/backup/compressibility.js';

describe('compressibility: whether a blob is worth gzipping, from a sample', () => {
  const log = Buffer.from(Array.from({ length: 2000 }, (_, n) => `[12:00:${String(n % 60).padStart(2, '0')}] player${n % 97} moved to ${n * 7}\n`).join('')).subarray(0, 64 * 1024);

  it('says no for random bytes and for bytes gzipped already', () => {
    expect(worthCompressing(randomBytes(64 * 1024))).to.equal(false);
    const words = Buffer.from(Array.from({ length: 40_000 }, (_, n) => randomBytes(1 + (n % 7)).toString('base64url')).join(' '));
    expect(worthCompressing(gzipSync(words).subarray(0, 64 * 1024))).to.equal(false);
  });

  it('says yes for text, whose byte frequencies are skewed', () => {
    expect(worthCompressing(log)).to.equal(true);
  });

  it('says yes for random bytes repeated within the sample (even frequencies, yet deflate shrinks them)', () => {
    const block = randomBytes(1024);
    const repeated = Buffer.concat(Array.from({ length: 64 }, () => block));
    expect(worthCompressing(repeated)).to.equal(true);
  });

  it('says no for nothing at all', () => {
    expect(worthCompressing(Buffer.alloc(0))).to.equal(false);
  });
});
