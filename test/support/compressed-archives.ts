import { constants, crc32, deflateRawSync } from 'node:zlib';
import { tarOf } from './archive-builders.js';

/**
 * Bytes an archive is made of, as pieces: literal bytes, or a run of zeros described rather than
 * held, so a 1 GiB bomb is built in memory of a few MiB.
 */
export type Piece = Buffer | { zeros: number };

const mib = 1024 * 1024;
const isZeros = (piece: Piece): piece is { zeros: number } => !Buffer.isBuffer(piece);

/**
 * A zstd frame of raw and RLE blocks: no compression but runs of zeros, which is all a test
 * archive needs (Node 20 has no zstd encoder, and the npm ones compress a whole buffer at once).
 * Blocks hold at most 128 KiB, the window the frame header declares.
 */
export function zstdOf(pieces: Piece[]): Buffer {
  const maxBlock = 128 * 1024;
  const blocks: Buffer[] = [];
  const block = (type: 0 | 1, size: number, content: Buffer) => {
    const header = Buffer.alloc(3);
    header.writeUIntLE((size << 3) | (type << 1), 0, 3);
    blocks.push(header, content);
  };
  for (const piece of pieces) {
    if (isZeros(piece)) for (let left = piece.zeros; left > 0; left -= maxBlock) block(1, Math.min(left, maxBlock), Buffer.alloc(1));
    else for (let at = 0; at < piece.length; at += maxBlock) block(0, Math.min(piece.length - at, maxBlock), piece.subarray(at, at + maxBlock));
  }
  block(0, 0, Buffer.alloc(0));
  // The empty raw block closes the frame: set its Last_Block bit.
  blocks[blocks.length - 2][0] |= 1;
  // Magic, a frame header with no content size, checksum or dictionary, and a window of 2^17 bytes.
  return Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3]), ...blocks]);
}

/** A gzip member whose deflate stream is flushed blocks, a run of zeros costing one deflated MiB repeated. */
export function gzipOf(pieces: Piece[]): Buffer {
  const flushed = (data: Buffer) => deflateRawSync(data, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const zeroMib = flushed(Buffer.alloc(mib));
  const parts: Buffer[] = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])];
  let crc = 0;
  let size = 0;
  for (const piece of pieces) {
    if (isZeros(piece)) {
      for (let left = piece.zeros; left > 0; left -= mib) {
        const n = Math.min(left, mib);
        parts.push(n === mib ? zeroMib : flushed(Buffer.alloc(n)));
        crc = crc32(Buffer.alloc(n), crc);
      }
      size += piece.zeros;
    } else {
      parts.push(flushed(piece));
      crc = crc32(piece, crc);
      size += piece.length;
    }
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size % 2 ** 32, 4);
  // A final empty fixed block ends the deflate stream.
  return Buffer.concat([...parts, Buffer.from([0x03, 0x00]), trailer]);
}

/**
 * A tar of one file of `bytes` zeros, as pieces: the header of an empty file, its size field
 * rewritten (and the header's checksum with it), then the zeros and the end-of-archive blocks.
 */
export async function zerosTar(name: string, bytes: number): Promise<Piece[]> {
  const header = Buffer.from((await tarOf([{ name, content: '' }])).subarray(0, 512));
  header.write(`${bytes.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  header.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  const padding = (512 - (bytes % 512)) % 512;
  return [header, { zeros: bytes + padding + 1024 }];
}

/** The tar formats a hostile case is built in: a plain tar, gzipped and zstd-framed. */
export const tarFormats = {
  tar: (tar: Buffer) => tar,
  'tar.gz': (tar: Buffer) => gzipOf([tar]),
  'tar.zst': (tar: Buffer) => zstdOf([tar]),
} as const;
