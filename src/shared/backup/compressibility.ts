import { deflateRawSync } from 'node:zlib';

/**
 * Bits per byte below which a sample shrinks by a tenth from its byte frequencies alone (what
 * gzip's Huffman stage gains even with no repeats): 8 × 0.9.
 */
const skewedBits = 7.2;
/** How much of the sample's byte frequencies are counted: enough to tell 8 bits from 7.2 by far. */
const countedBytes = 16 * 1024;
/** How much of the sample is deflated to find repeats in bytes whose frequencies are even. */
const deflatedBytes = 4 * 1024;

/** Shannon entropy of the bytes, in bits per byte (8 for random bytes). */
function entropyBits(sample: Uint8Array): number {
  const counts = new Uint32Array(256);
  for (let i = 0; i < sample.length; i++) counts[sample[i]]++;
  let bits = 0;
  for (const count of counts) {
    if (count === 0) continue;
    const p = count / sample.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether gzip would shrink bytes like `sample` by a tenth or more. Deflating a 64 KiB sample of
 * every blob cost a Controller a fifth of a backup's CPU on incompressible region files. Counting
 * the byte frequencies of its first 16 KiB costs a small part of that; only a sample whose bytes
 * look even is deflated, and only its first 4 KiB (repeats within it, as a file of one pattern has).
 */
export function worthCompressing(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (entropyBits(sample.subarray(0, countedBytes)) < skewedBits) return true;
  const tried = sample.subarray(0, deflatedBytes);
  return deflateRawSync(tried, { level: 1 }).length < tried.length * 0.9;
}
