import { connect } from 'node:net';
import { handshakePacket, packet, PacketReader, readString, type Packet } from '../../shared/minecraft-packets.js';

/** Players online and the most the server takes, as its status answer says, and what else it said of itself. */
export interface PingedPlayers {
  online: number;
  max: number;
  /** The game's version and description when its answer had them: what its port says while it sleeps. */
  game?: { version: { name: string; protocol: number }; description: string | object };
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
  if (online === undefined || max === undefined) return null;
  const { version, description } = parsed as { version?: { name?: unknown; protocol?: unknown }; description?: unknown };
  const known = typeof version?.name === 'string' && Number.isSafeInteger(version.protocol)
    && (typeof description === 'string' || (typeof description === 'object' && description !== null));
  return known ? { online, max, game: { version: { name: version.name as string, protocol: version.protocol as number }, description } } : { online, max };
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
    const reader = new PacketReader(options.maxBytes);
    let read = 0;
    let players: PingedPlayers | null = null;
    let pinged = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(players);
    };
    // Past the deadline, a status already read still counts: only the pong was late.
    const timer = setTimeout(finish, options.deadlineMs);
    socket.on('connect', () => {
      const handshake = handshakePacket({ protocol: anyProtocol, address: host, port, nextState: 1 });
      socket.write(Buffer.concat([handshake, packet(0x00, Buffer.alloc(0))]));
    });
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > options.maxBytes || pinged) return finish();
      let status: Packet | undefined;
      try {
        status = reader.push(chunk).at(0);
      } catch {
        return finish();
      }
      if (!status) return;
      const json = status.id === 0x00 ? readString(status.data, 0) : undefined;
      players = json ? playersOfStatus(json.value) : null;
      if (!players) return finish();
      pinged = true;
      const payload = Buffer.alloc(8);
      payload.writeBigInt64BE(BigInt(Date.now()));
      socket.write(packet(0x01, payload));
    });
    socket.on('error', finish);
    socket.on('close', finish);
  });
}
