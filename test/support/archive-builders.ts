import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import yazl from 'yazl';

/** A zip of `files` (name → content; a name ending in `/` is a directory); `modes` gives an entry's Unix mode. */
export async function zipOf(files: Record<string, string | Buffer>, modes: Partial<Record<string, number>> = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) {
    if (name.endsWith('/')) zip.addEmptyDirectory(name);
    else zip.addBuffer(Buffer.from(content), name, modes[name] === undefined ? {} : { mode: modes[name] });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A zip whose entry names were rewritten after yazl wrote them (yazl refuses hostile names):
 * `from` and `to` have the same length, so every offset stays right, in the local headers and
 * in the central directory alike.
 */
export async function zipWithRenamedEntry(from: string, to: string): Promise<Buffer> {
  if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error('names must have the same length');
  const zip = await zipOf({ [from]: 'planted\n' });
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let i = out.indexOf(needle); i !== -1; i = out.indexOf(needle, i + 1)) Buffer.from(to).copy(out, i);
  return out;
}

/**
 * A zip bomb: one entry of `bytes` zeros (1 GiB) in about 1 MiB. Built by hand in well under a
 * second, not by deflating a GiB: 1 MiB of zeros is deflated once and flushed to a byte boundary
 * (non-final blocks), that block run repeated, and a final empty block closes the stream.
 */
export function zipBomb(bytes = 1024 ** 3): Buffer {
  const mib = 1024 * 1024;
  const zeros = Buffer.alloc(mib);
  const run = deflateRawSync(zeros, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const data = Buffer.concat([...Array.from({ length: bytes / mib }, () => run), Buffer.from([0x03, 0x00])]);
  let crc = 0;
  for (let i = 0; i < bytes / mib; i++) crc = crc32(zeros, crc);
  const name = Buffer.from('zeros.bin');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(0x21, 12);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(bytes, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x031e, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(0x21, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(bytes, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(local.length + name.length + data.length, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

export type TarEntry = Partial<tar.Header> & { name: string; content?: string };

/** A tar of `entries` (devices, links and all, as tar-stream writes them); gzipped when asked. */
export async function tarOf(entries: TarEntry[], gzip = false): Promise<Buffer> {
  const pack = tar.pack();
  for (const { content, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      pack.entry(header, content ?? '', (err) => (err ? reject(err) : resolve()));
    });
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  const plain = Buffer.concat(chunks);
  return gzip ? gzipSync(plain) : plain;
}
