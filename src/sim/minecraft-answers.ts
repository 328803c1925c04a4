/**
 * What simcraft answers a Minecraft client (src/shared/minecraft-server-session.ts speaks the
 * exchange): the status JSON a server list shows, and Login Success, after which the client is a
 * player until it closes. Only this much of the protocol: simcraft is no game, and its plain
 * greeting serves every other client.
 */
import { createHash } from 'node:crypto';
import { packet, writeString } from '../shared/minecraft-packets.js';
import { readVarInt, writeVarInt } from '../shared/minecraft-varint.js';

/** What a status answer says: the version, the player counts and the motd. */
export interface ServerStatusInfo {
  version: string;
  protocol: number;
  max: number;
  online: number;
  motd: string;
}

/** The protocol number of Minecraft 1.21.4, which simcraft claims whatever its version: clients show it only to say whether they can join. */
export const simcraftProtocol = 769;

/** The longest first packet taken for a handshake: a handshake is a few dozen bytes. */
const maxHandshake = 1024;

/** Whether the first bytes a client sent begin a handshake (a plain client sends nothing first). */
export function startsHandshake(buf: Buffer): boolean {
  try {
    const length = readVarInt(buf, 0);
    return length !== undefined && length.value > 0 && length.value <= maxHandshake && buf[length.end] === 0x00;
  } catch {
    return false;
  }
}

export function statusJson(s: ServerStatusInfo): string {
  return JSON.stringify({ version: { name: s.version, protocol: s.protocol }, players: { max: s.max, online: s.online }, description: { text: s.motd } });
}

/** The UUID an offline-mode server gives a name: version 3 (MD5) of `OfflinePlayer:<name>`. */
function offlineUuid(name: string): Buffer {
  const bytes = createHash('md5').update(`OfflinePlayer:${name}`).digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x30;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return bytes;
}

/** Login Success as protocol 769 lays it out (id 0x02): the UUID, the name, no properties. No compression or encryption comes first: simcraft is an offline-mode server. */
export function loginSuccess(name: string): Buffer {
  return packet(0x02, Buffer.concat([offlineUuid(name), writeString(name), writeVarInt(0)]));
}
