import { connect } from 'node:net';
import { packet, readVarInt, writeVarInt } from '../../shared/minecraft-varint.js';

/** Players online and the most the server takes, as its status answer says. */
export interface PingedPlayers {
  online: number;
  max: number;
}

export interface PingOptions {
  /** The whole exchange ends by then: connect, handshake, status and pong. */
  deadlineMs: number;
  /** An answer longer than this ends the exchange unanswered (a status is a few hundred bytes; icons make it kilobytes). */
  maxBytes: number;
}

export const pingDefaults: PingOptions = { deadlineMs: 2_000, maxBytes: 64 * 1024 };

/** The protocol number sent in the handshake: -1 says "any", which every server answers a status for. */
const anyProtocol = -1;

const mcString = (text: string) => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([writeVarInt(bytes.length), bytes]);
};

function handshake(host: string, port: number): Buffer {
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  return packet(0x00, Buffer.concat([writeVarInt(anyProtocol), mcString(host), portBytes, writeVarInt(1)]));
}

/** The players of a status JSON; null when it says none that make sense. */
export function playersOfStatus(json: string): PingedPlayers | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const players = (parsed as { players?: { online?: unknown; max?: unknown } } | null)?.players;
  const count = (n: unknown) => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  const online = count(players?.online);
  const max = count(players?.max);
  return online === undefined || max === undefined ? null : { online, max };
}

/** The status packet's JSON once `buf` holds the whole packet; undefined while it does not. */
function statusJson(buf: Buffer): string | undefined {
  const length = readVarInt(buf, 0);
  if (!length || buf.length < length.end + length.value) return undefined;
  const id = readVarInt(buf, length.end);
  if (!id || id.value !== 0x00) throw new Error(`packet ${id?.value} where the status was expected`);
  const text = readVarInt(buf, id.end);
  if (!text || text.end + text.value > length.end + length.value) throw new Error('a status string longer than its packet');
  return buf.subarray(text.end, text.end + text.value).toString('utf8');
}

/**
 * Asks a Minecraft server for its status with the Server List Ping (handshake with next state 1,
 * status request, ping) and answers its players; null when it does not answer in time, answers
 * too much or something else than a status. Never throws: a server that does not answer is
 * simply one whose players are unknown.
 */
export function pingPlayers(host: string, port: number, options: PingOptions = pingDefaults): Promise<PingedPlayers | null> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = Buffer.alloc(0);
    let players: PingedPlayers | null = null;
    let pinged = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(players);
    };
    // Past the deadline, a status already read still counts: only the pong was late.
    const timer = setTimeout(finish, options.deadlineMs);
    socket.on('connect', () => socket.write(Buffer.concat([handshake(host, port), packet(0x00, Buffer.alloc(0))])));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length > options.maxBytes) return finish();
      if (pinged) return finish();
      try {
        const json = statusJson(received);
        if (json === undefined) return;
        players = playersOfStatus(json);
        if (!players) return finish();
        pinged = true;
        received = Buffer.alloc(0);
        const payload = Buffer.alloc(8);
        payload.writeBigInt64BE(BigInt(Date.now()));
        socket.write(packet(0x01, payload));
      } catch {
        finish();
      }
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}
