import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { handshakePacket, packet, PacketReader, readString, writeString, type Packet } from '../../src/shared/minecraft-packets.js';

/** The protocol of Minecraft 1.21.4, whose Login Start is the name and the player's UUID. */
export const protocol1214 = 769;

/**
 * A Minecraft client's side of a connection, as far as tests need it: it sends packets and reads
 * the server's, one at a time, and tells when the server closed.
 */
export class GameClient {
  readonly closed: Promise<void>;
  private readonly reader = new PacketReader(1024 * 1024);
  private readonly packets: Packet[] = [];
  private wake = () => {};

  private constructor(readonly socket: Socket) {
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      this.packets.push(...this.reader.push(chunk));
      this.wake();
    });
    // Not events.once: it rejects on 'error' (a reset by the server), which nobody awaiting `closed` would handle.
    this.closed = new Promise<void>((resolve) => socket.once('close', () => resolve())).then(() => this.wake());
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<GameClient> {
    const socket = connect(port, host);
    await once(socket, 'connect');
    return new GameClient(socket);
  }

  send(...packets: Buffer[]): void {
    this.socket.write(Buffer.concat(packets));
  }

  /** The server's next packet; undefined when it closed without one, an error when none came within `timeoutMs`. */
  async next(timeoutMs = 5_000): Promise<Packet | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.packets.length === 0 && !this.socket.destroyed && !this.socket.readableEnded) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no packet from the server within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.packets.shift();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export const handshake = (port: number, nextState: number, protocol = protocol1214) => handshakePacket({ protocol, address: 'localhost', port, nextState });

/** Login Start as 1.20.2 and later lay it out: the name, then the player's UUID. */
export const loginStart = (name: string) => packet(0x00, Buffer.concat([writeString(name), Buffer.alloc(16, 7)]));

/** The string a packet's data begins with: a status JSON, a disconnect reason, a Login Success's name after its UUID. */
export function stringAt(p: Packet, at = 0): string {
  const s = readString(p.data, at);
  if (!s) throw new Error(`packet 0x${p.id.toString(16)} holds no string at ${at}`);
  return s.value;
}

/** A whole Server List Ping: the status JSON, parsed, and whether the pong echoed the ping. */
export async function statusPing(port: number, protocol = protocol1214): Promise<{ status: unknown; ponged: boolean }> {
  const client = await GameClient.connect(port);
  try {
    client.send(handshake(port, 1, protocol), packet(0x00, Buffer.alloc(0)));
    const answer = await client.next();
    if (answer?.id !== 0x00) throw new Error(`packet ${answer?.id} where the status was expected`);
    const payload = Buffer.from('cairn-pg');
    client.send(packet(0x01, payload));
    const pong = await client.next();
    return { status: JSON.parse(stringAt(answer)), ponged: pong?.id === 0x01 && pong.data.equals(payload) };
  } finally {
    client.destroy();
  }
}

/** Opens a connection and logs in as `name`: the client, still open, and the server's first answer. */
export async function login(port: number, name: string): Promise<{ client: GameClient; answer: Packet | undefined }> {
  const client = await GameClient.connect(port);
  client.send(handshake(port, 2), loginStart(name));
  return { client, answer: await client.next() };
}
