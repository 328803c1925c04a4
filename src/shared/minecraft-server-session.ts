/**
 * One connection to a Minecraft server, from the server's side, up to where a game would begin:
 * the handshake, then either the Server List Ping (a status request answered with the status JSON,
 * a ping with its pong, and the end) or a login's first packet, Login Start, whose answer the
 * server decides: a disconnect, or Login Success and a player who stays. Anything else (another
 * next state, another packet, a packet longer than any of these) ends the connection.
 *
 * The layouts read here are the same in every protocol version from 1.7 on: the handshake, the
 * status and ping packets, and Login Start's first field, the name (later fields vary and are
 * not read). simcraft lets players in with it; the Agent's sleeper turns them away and wakes the game.
 */
import { PacketReader, packet, readHandshake, readString, writeString, type Packet } from './minecraft-packets.js';

export type SessionState = 'handshake' | 'status' | 'ping' | 'login' | 'held' | 'ended';

export interface ServerAnswers {
  /** The status JSON (version, players, description) a status request gets. */
  status(): string;
  /** What a Login Start from `name` gets: the packets to send, and whether the connection then stays open as a player's. */
  login(name: string, protocol: number): { packets: Buffer[]; stay: boolean };
}

/**
 * The longest packet taken: a handshake names an address of at most 255 characters, and the
 * longest Login Start (1.19's, with a signed public key) is under 900 bytes.
 */
const maxPacket = 1024;

/** A name as Minecraft accepts one: 1 to 16 printable ASCII characters, no space. */
const playerName = /^[!-~]{1,16}$/;

/** Feed it what arrives and send what it answers; once `state` is `ended` close the connection, once `held` the rest is the game's. */
export class ServerSession {
  state: SessionState = 'handshake';
  private readonly reader = new PacketReader(maxPacket);
  private protocol = 0;

  constructor(private readonly answers: ServerAnswers) {}

  receive(chunk: Buffer): Buffer[] {
    if (this.over()) return [];
    let packets: Packet[];
    try {
      packets = this.reader.push(chunk);
    } catch {
      this.state = 'ended';
      return [];
    }
    const out: Buffer[] = [];
    for (const p of packets) {
      out.push(...this.handle(p));
      if (this.over()) break;
    }
    return out;
  }

  private over(): boolean {
    return this.state === 'held' || this.state === 'ended';
  }

  private handle({ id, data }: Packet): Buffer[] {
    switch (this.state) {
      case 'handshake': {
        const handshake = id === 0x00 ? readHandshake(data) : undefined;
        this.protocol = handshake?.protocol ?? 0;
        this.state = handshake?.nextState === 1 ? 'status' : handshake?.nextState === 2 ? 'login' : 'ended';
        return [];
      }
      case 'status':
        if (id !== 0x00) break;
        this.state = 'ping';
        return [packet(0x00, writeString(this.answers.status()))];
      case 'ping':
        if (id !== 0x01 || data.length !== 8) break;
        this.state = 'ended';
        return [packet(0x01, data)];
      case 'login': {
        const name = id === 0x00 ? readString(data, 0)?.value : undefined;
        if (name === undefined || !playerName.test(name)) break;
        const answer = this.answers.login(name, this.protocol);
        this.state = answer.stay ? 'held' : 'ended';
        return answer.packets;
      }
      case 'held':
      case 'ended':
        break;
    }
    this.state = 'ended';
    return [];
  }
}
