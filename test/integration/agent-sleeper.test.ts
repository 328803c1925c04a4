import { expect } from 'chai';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { Sleeper, sleeperLimits, type SleeperOptions } from '../../src/agent/sleeper/sleeper.js';
import { packet, writeString } from '../../src/shared/minecraft-packets.js';
import { GameClient, handshake, login, loginStart, statusPing, stringAt } from '../support/minecraft-client.js';
import { seeded } from '../support/seeded-random.js';

const lastStatus = { version: { name: 'Paper 1.21.4', protocol: 769 }, maxPlayers: 30, description: { text: 'Survival', color: 'green' } };

/** What a client sees of a connection it opened and then sent `bytes` on: the packets the sleeper answered, until it closed. */
async function answersTo(port: number, ...bytes: Buffer[]): Promise<{ id: number }[]> {
  const client = await GameClient.connect(port);
  client.send(...bytes);
  const answers: { id: number }[] = [];
  for (let p = await client.next(); p; p = await client.next()) answers.push(p);
  await client.closed;
  return answers;
}

describe('The Agent\'s sleeper: a sleeping server\'s port, answered with real TCP', () => {
  const sleepers: Sleeper[] = [];
  const clients: GameClient[] = [];
  let wakes: string[];
  const sleep = async (options: Partial<SleeperOptions> = {}) => {
    const sleeper = await Sleeper.listen({ port: 0, host: '127.0.0.1', status: lastStatus, onWake: (player) => wakes.push(player), timeoutMs: 300, ...options });
    sleepers.push(sleeper);
    return sleeper.address().port;
  };

  beforeEach(() => {
    wakes = [];
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await Promise.all(sleepers.splice(0).map((s) => s.close()));
  });

  it('answers status pings of every protocol from 1.7 on with the last status, 0 players and the Sleeping description, and never wakes', async () => {
    const port = await sleep();
    // 1.7.2, 1.8, 1.12.2, 1.16.5, 1.20.4 (whose status change broke other tools' wake detection), 1.21.4, and "any".
    for (const protocol of [4, 47, 340, 754, 765, 769, -1]) {
      for (let i = 0; i < 10; i++) {
        const { status, ponged } = await statusPing(port, protocol);
        expect(status).to.deep.equal({
          version: { name: 'Paper 1.21.4', protocol: 769 },
          players: { online: 0, max: 30 },
          description: { text: 'Sleeping: join to wake. ', extra: [{ text: 'Survival', color: 'green' }] },
        });
        expect(ponged, `the pong of protocol ${protocol}`).to.equal(true);
      }
    }
    expect(wakes).to.deep.equal([]);
  });

  it('keeps a description that is a plain string as the prefix\'s child', async () => {
    const port = await sleep({ status: { ...lastStatus, description: 'A Minecraft Server' } });
    const { status } = await statusPing(port);
    expect((status as { description: unknown }).description).to.deep.equal({ text: 'Sleeping: join to wake. ', extra: ['A Minecraft Server'] });
  });

  it('turns a login away with a disconnect saying the server starts, and wakes once with the first login\'s name', async () => {
    const port = await sleep();
    const first = await login(port, 'Alex');
    clients.push(first.client);
    expect(first.answer?.id, 'login Disconnect').to.equal(0x00);
    expect(JSON.parse(stringAt(first.answer!))).to.deep.equal({ text: 'This server is starting: join again in a moment.' });
    await first.client.closed;
    expect(wakes).to.deep.equal(['Alex']);
    // A 1.8 client's Login Start is the name alone: turned away alike, and the server is already waking.
    const old = await answersTo(port, handshake(port, 2, 47), packet(0x00, writeString('Steve')));
    expect(old.map((p) => p.id)).to.deep.equal([0x00]);
    expect(wakes).to.deep.equal(['Alex']);
  });

  it('wakes once for a flood of 100 logins at the same time, each of them told the server starts', async () => {
    const port = await sleep({ timeoutMs: 5_000 });
    const all = await Promise.all(Array.from({ length: 100 }, (_, i) => login(port, `Flood${i}`)));
    clients.push(...all.map((l) => l.client));
    expect(all.map((l) => l.answer?.id)).to.deep.equal(Array(100).fill(0x00));
    expect(wakes).to.have.length(1);
    expect(wakes[0]).to.match(/^Flood\d+$/);
  });

  it('closes port scanner noise and wakes nothing: connect and close, random bytes, next state 9, a legacy ping, junk after a handshake, a bad name', async () => {
    const port = await sleep();
    const random = seeded(44);
    const noise = [
      [],
      [Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256)))],
      [Buffer.from(Array.from({ length: 3000 }, () => Math.floor(random() * 256)))],
      [handshake(port, 9)],
      [handshake(port, 3)],
      [Buffer.from([0xfe, 0x01])],
      [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
      [handshake(port, 2), packet(0x05, Buffer.from('nope'))],
      [handshake(port, 1), packet(0x07, Buffer.alloc(0))],
      [handshake(port, 2), loginStart('has space')],
      [handshake(port, 2), loginStart('')],
      [handshake(port, 2), loginStart('seventeen_chars_x')],
      [Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ];
    for (const bytes of noise) expect(await answersTo(port, ...bytes), `answers to ${Buffer.concat(bytes).subarray(0, 16).toString('hex')}`).to.deep.equal([]);
    const quiet = await GameClient.connect(port);
    clients.push(quiet);
    await quiet.closed;
    expect(wakes).to.deep.equal([]);
    expect((await statusPing(port)).ponged, 'the port still answers').to.equal(true);
  });

  it('closes a connection that sends no handshake within its time (5 s by default), or stalls after one', async () => {
    expect(sleeperLimits.timeoutMs).to.equal(5_000);
    const port = await sleep({ timeoutMs: 400 });
    const silent = await GameClient.connect(port);
    const stalled = await GameClient.connect(port);
    clients.push(silent, stalled);
    stalled.send(handshake(port, 2));
    const started = Date.now();
    await Promise.all([silent.closed, stalled.closed]);
    expect(Date.now() - started).to.be.within(250, 3_000);
    expect(wakes).to.deep.equal([]);
  });

  it('reads at most 4 KiB of one connection, even one it has answered and that keeps sending', async () => {
    const port = await sleep({ timeoutMs: 10_000 });
    const raw = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    raw.on('error', () => undefined);
    await once(raw, 'connect');
    raw.write(handshake(port, 9));
    raw.resume();
    await once(raw, 'end');
    const started = Date.now();
    raw.write(Buffer.alloc(sleeperLimits.maxBytesPerConnection + 1000));
    // A closed socket is told by the reset its next bytes get; a half-closed one still takes them.
    const poke = setInterval(() => raw.write(Buffer.alloc(1)), 50);
    await new Promise((resolve) => raw.once('close', resolve));
    clearInterval(poke);
    expect(Date.now() - started, 'closed at the cap, long before its time').to.be.below(5_000);
  });

  it('keeps at most 128 connections open at once: past them a new one is closed on accept', async () => {
    const port = await sleep({ timeoutMs: 10_000 });
    const held = await Promise.all(Array.from({ length: sleeperLimits.maxConnections }, () => GameClient.connect(port)));
    clients.push(...held);
    const extra = await GameClient.connect(port);
    clients.push(extra);
    await extra.closed;
    held[0].destroy();
    await waitForStatus(port);
  });

  it('frees the port on close: the game binds it at once, while connections were still open', async () => {
    const sleeper = await Sleeper.listen({ port: 0, host: '127.0.0.1', status: lastStatus, onWake: () => undefined });
    const { port } = sleeper.address();
    const open = await GameClient.connect(port);
    clients.push(open);
    const answered = await login(port, 'Early');
    clients.push(answered.client);
    await sleeper.close();
    const game = createServer();
    game.listen({ port, host: '127.0.0.1', exclusive: true });
    await once(game, 'listening');
    await new Promise<void>((resolve) => game.close(() => resolve()));
    await open.closed;
  });

  it('refuses to start on a port another program holds', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const { port } = holder.address() as { port: number };
      let error: unknown;
      await Sleeper.listen({ port, host: '127.0.0.1', status: lastStatus, onWake: () => undefined }).catch((e: unknown) => (error = e));
      expect((error as NodeJS.ErrnoException).code).to.equal('EADDRINUSE');
    } finally {
      holder.close();
    }
  });
});

/** A status ping that succeeds, tried until it does (a closed connection's slot frees a moment after it closes). */
async function waitForStatus(port: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      if ((await statusPing(port)).ponged) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
