/**
 * The framing of Minecraft's protocol that every side here speaks: packets (`VarInt length,
 * VarInt id, data`), strings (`VarInt byte length, UTF-8`) and the handshake that opens every
 * connection. The Agent's status ping, its sleeper and simcraft all read and write them here.
 */
import { readVarInt, writeVarInt } from './minecraft-varint.js';

export interface Packet {
  id: number;
  data: Buffer;
}

/** A packet as it goes on the wire. */
export function packet(id: number, data: Buffer): Buffer {
  const body = Buffer.concat([writeVarInt(id), data]);
  return Buffer.concat([writeVarInt(body.length), body]);
}

export function writeString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([writeVarInt(bytes.length), bytes]);
}

/** A string at `at` and where it ends; undefined when `buf` ends first or holds no string there. */
export function readString(buf: Buffer, at: number): { value: string; end: number } | undefined {
  let length: ReturnType<typeof readVarInt>;
  try {
    length = readVarInt(buf, at);
  } catch {
    return undefined;
  }
  if (!length || length.value < 0 || length.end + length.value > buf.length) return undefined;
  return { value: buf.toString('utf8', length.end, length.end + length.value), end: length.end + length.value };
}

/**
 * Splits a stream of bytes into packets. A packet longer than `maxPacket`, or one without an id,
 * throws: the peer speaks something else, and what it sent is never kept beyond one packet.
 */
export class PacketReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxPacket: number) {}

  /** The packets `chunk` completes, in order. */
  push(chunk: Buffer): Packet[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const packets: Packet[] = [];
    for (;;) {
      const length = readVarInt(this.pending, 0);
      if (!length) break;
      if (length.value <= 0 || length.value > this.maxPacket) throw new Error(`a packet of ${length.value} bytes`);
      const end = length.end + length.value;
      if (this.pending.length < end) break;
      const id = readVarInt(this.pending, length.end);
      if (!id || id.end > end) throw new Error('a packet without an id');
      packets.push({ id: id.value, data: this.pending.subarray(id.end, end) });
      this.pending = this.pending.subarray(end);
    }
    // A copy of the rest, so a large chunk is not held for the few bytes of the next packet.
    this.pending = Buffer.from(this.pending);
    return packets;
  }
}

/** What the client says in its first packet: its protocol version, the address and port it dialled, and what it wants next (1 status, 2 login). */
export interface Handshake {
  protocol: number;
  address: string;
  port: number;
  nextState: number;
}

export function handshakePacket(handshake: Handshake): Buffer {
  const port = Buffer.alloc(2);
  port.writeUInt16BE(handshake.port);
  return packet(0x00, Buffer.concat([writeVarInt(handshake.protocol), writeString(handshake.address), port, writeVarInt(handshake.nextState)]));
}

/** The handshake in a packet's data (id 0x00 in the first state); undefined when the data is none. */
export function readHandshake(data: Buffer): Handshake | undefined {
  try {
    const protocol = readVarInt(data, 0);
    const address = protocol && readString(data, protocol.end);
    if (!protocol || !address || address.end + 2 > data.length) return undefined;
    const next = readVarInt(data, address.end + 2);
    return next && { protocol: protocol.value, address: address.value, port: data.readUInt16BE(address.end), nextState: next.value };
  } catch {
    return undefined;
  }
}
