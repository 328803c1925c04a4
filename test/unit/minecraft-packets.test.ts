import { expect } from 'chai';
import { handshakePacket, packet, PacketReader, readHandshake, readString, writeString } from '../../src/shared/minecraft-packets.js';
import { ServerSession } from '../../src/shared/minecraft-server-session.js';
import { writeVarInt } from '../../src/shared/minecraft-varint.js';

describe('Minecraft packets: framing, strings, the handshake and the server side of a session', () => {
  it('reads packets split at every byte and packets sharing a chunk alike', () => {
    const bytes = Buffer.concat([packet(0x00, writeString('hello')), packet(0x01, Buffer.alloc(8, 9)), packet(0x2a, Buffer.alloc(0))]);
    const oneByOne = new PacketReader(1024);
    const split = [...bytes].flatMap((b) => oneByOne.push(Buffer.from([b])));
    const whole = new PacketReader(1024).push(bytes);
    for (const packets of [split, whole]) {
      expect(packets.map((p) => p.id)).to.deep.equal([0x00, 0x01, 0x2a]);
      expect(readString(packets[0].data, 0)?.value).to.equal('hello');
      expect(packets[1].data).to.deep.equal(Buffer.alloc(8, 9));
    }
  });

  it('throws on a packet longer than its cap, of no length, or a length that is no VarInt', () => {
    expect(() => new PacketReader(1024).push(writeVarInt(1025))).to.throw('1025 bytes');
    expect(() => new PacketReader(1024).push(Buffer.from([0x00]))).to.throw('0 bytes');
    expect(() => new PacketReader(1024).push(Buffer.alloc(6, 0xff))).to.throw('VarInt');
  });

  it('writes and reads a handshake, the "any" protocol -1 included; a cut one is none', () => {
    const hs = { protocol: -1, address: 'play.example.org', port: 25565, nextState: 1 };
    const [p] = new PacketReader(1024).push(handshakePacket(hs));
    expect(readHandshake(p.data)).to.deep.equal(hs);
    expect(readHandshake(p.data.subarray(0, p.data.length - 1))).to.equal(undefined);
    expect(readHandshake(Buffer.alloc(6, 0xff))).to.equal(undefined);
    expect(readString(Buffer.concat([writeVarInt(10), Buffer.from('short')]), 0)).to.equal(undefined);
  });

  it('answers a whole status exchange sent in one chunk, then ends; a login is answered as the server says, with its protocol', () => {
    const status = new ServerSession({ status: () => '{"players":{"online":0,"max":1}}', login: () => ({ packets: [], stay: false }) });
    const ping = Buffer.alloc(8, 1);
    const out = status.receive(Buffer.concat([handshakePacket({ protocol: 47, address: 'x', port: 1, nextState: 1 }), packet(0x00, Buffer.alloc(0)), packet(0x01, ping)]));
    expect(out).to.deep.equal([packet(0x00, writeString('{"players":{"online":0,"max":1}}')), packet(0x01, ping)]);
    expect(status.state).to.equal('ended');

    const logins: [string, number][] = [];
    const login = new ServerSession({ status: () => '{}', login: (name, protocol) => (logins.push([name, protocol]), { packets: [Buffer.from('ok')], stay: true }) });
    expect(login.receive(handshakePacket({ protocol: 769, address: 'x', port: 1, nextState: 2 }))).to.deep.equal([]);
    expect(login.receive(packet(0x00, Buffer.concat([writeString('Alex'), Buffer.alloc(16)])))).to.deep.equal([Buffer.from('ok')]);
    expect(login.state).to.equal('held');
    expect(login.receive(packet(0x03, Buffer.alloc(0))), 'what follows is the game\'s').to.deep.equal([]);
    expect(logins).to.deep.equal([['Alex', 769]]);
  });
});
