/**
 * The VarInt of Minecraft's protocol (little-endian groups of 7 bits, the high bit saying more
 * follow, at most 5 bytes): packet lengths, ids and string lengths are written with it
 * (minecraft-packets.ts).
 */

/** A VarInt at `at`: its value and where it ends; undefined while incomplete. */
export function readVarInt(buf: Buffer, at: number): { value: number; end: number } | undefined {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    if (at + i >= buf.length) return undefined;
    const byte = buf[at + i];
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, end: at + i + 1 };
  }
  throw new Error('VarInt longer than 5 bytes');
}

export function writeVarInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0);
  return Buffer.from(bytes);
}
