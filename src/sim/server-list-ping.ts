/**
 * The Minecraft Server List Ping as a server answers it (the status a client's server list shows):
 * a handshake with next state 1, a status request answered with the status JSON, then a ping
 * answered with the same payload. Packets are `VarInt length, VarInt id, data`. Only this much of
 * the protocol: simcraft is no game, and its plain greeting serves every other client.
 */

import { packet, readVarInt, writeVarInt } from '../shared/minecraft-varint.js';

/** What a status answer says: the version, the player counts and the motd. */
export interface ServerStatusInfo {
  version: string;
  protocol: number;
  max: number;
  online: number;
  motd: string;
}

/** The longest packet accepted: a status exchange is a few dozen bytes. */
const maxPacket = 1024;

/** Whether the first bytes a client sent begin a handshake (a plain client sends nothing first). */
export function startsHandshake(buf: Buffer): boolean {
  const length = readVarInt(buf, 0);
  return length !== undefined && length.value > 0 && length.value <= maxPacket && buf[length.end] === 0x00;
}

/**
 * One connection's side of the exchange: feed it what arrives, send what it answers; `done` once
 * the pong is sent (or the client asked for something else, which ends the connection too).
 */
export class ServerListPingSession {
  private pending = Buffer.alloc(0);
  private state: 'handshake' | 'status' | 'ping' = 'handshake';
  done = false;

  constructor(private readonly status: () => ServerStatusInfo) {}

  receive(chunk: Buffer): Buffer[] {
    this.pending = Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      const length = readVarInt(this.pending, 0);
      if (!length) break;
      if (length.value > maxPacket) {
        this.done = true;
        break;
      }
      if (this.pending.length < length.end + length.value) break;
      const body = this.pending.subarray(length.end, length.end + length.value);
      this.pending = this.pending.subarray(length.end + length.value);
      const id = readVarInt(body, 0);
      if (!id) {
        this.done = true;
        break;
      }
      out.push(...this.handle(id.value, body.subarray(id.end)));
      if (this.done) break;
    }
    return out;
  }

  private handle(id: number, data: Buffer): Buffer[] {
    if (this.state === 'handshake' && id === 0x00) {
      // protocol version, server address (a string), port (2 bytes), then the next state.
      const protocol = readVarInt(data, 0);
      const addressLength = protocol && readVarInt(data, protocol.end);
      const next = addressLength && readVarInt(data, addressLength.end + addressLength.value + 2);
      if (next?.value !== 1) this.done = true;
      else this.state = 'status';
      return [];
    }
    if (this.state === 'status' && id === 0x00) {
      this.state = 'ping';
      const s = this.status();
      const json = JSON.stringify({ version: { name: s.version, protocol: s.protocol }, players: { max: s.max, online: s.online }, description: { text: s.motd } });
      const text = Buffer.from(json, 'utf8');
      return [packet(0x00, Buffer.concat([writeVarInt(text.length), text]))];
    }
    this.done = true;
    return this.state === 'ping' && id === 0x01 ? [packet(0x01, data.subarray(0, 8))] : [];
  }
}
