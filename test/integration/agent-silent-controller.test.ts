import { expect } from 'chai';
import { capturingLogger } from '../support/capturing-logger.js';
import * as grpc from '@grpc/grpc-js';
import { AgentLinkClient, type LinkClientOptions } from '../../src/agent/link/link-client.js';
import type { AgentMessage, ControllerMessage } from '../../src/shared/link/messages.js';
import { agentLinkService, type AgentLinkHandlers } from '../../src/shared/link/proto.js';
import { waitFor } from '../support/wait-for.js';

type Stream = Parameters<AgentLinkHandlers['Connect']>[0];

/** A stand-in Controller: each Connect is handed to the test, which decides what the stream says. */
class FakeController {
  readonly streams: Stream[] = [];
  readonly heartbeats: number[] = [];
  private server = new grpc.Server();
  port = 0;

  constructor(private readonly onHello: (stream: Stream, index: number) => void) {
    const handlers: AgentLinkHandlers = {
      Enroll: (_call, callback) => callback({ code: grpc.status.UNIMPLEMENTED }),
      FetchArtifact: (call) => call.emit('error', { code: grpc.status.UNIMPLEMENTED }),
      Connect: (stream) => {
        const index = this.streams.push(stream) - 1;
        stream.on('error', () => undefined);
        stream.on('data', (message: AgentMessage) => {
          if (message.kind === 'hello') this.onHello(stream, index);
          if (message.kind === 'heartbeat') this.heartbeats.push(index);
        });
      },
    };
    this.server.addService(agentLinkService(), handlers);
  }

  async listen(): Promise<void> {
    this.port = await new Promise<number>((resolve, reject) => this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
  }

  close(): void {
    this.server.forceShutdown();
  }
}

const welcome = (silenceLimitMs: number): ControllerMessage => ({ kind: 'welcome', welcome: { nodeId: 'n1', heartbeatIntervalMs: 50, observedAddress: '127.0.0.1', silenceLimitMs } });
const keepalive: ControllerMessage = { kind: 'keepalive', keepalive: {} };

/**
 * Issue 47: a frozen Controller keeps its TCP link open, so gRPC keepalive notices it only after
 * 35 s. A Controller that states a silence limit in Welcome is left once it says nothing for that
 * long, before the Welcome too once a limit is known; one that states none is kept (today's rule).
 */
describe('the Agent leaves a silent Controller (Welcome.silence_limit_ms)', function () {
  this.timeout(20_000);
  let fake: FakeController | undefined;
  let client: AgentLinkClient | undefined;

  afterEach(() => {
    client?.stop();
    fake?.close();
  });

  async function start(onHello: (stream: Stream, index: number) => void, backoff = { initialMs: 20, maxMs: 100, factor: 2 }, extra: Pick<LinkClientOptions, 'silenceLimitMs' | 'onSilenceLimit'> = {}) {
    fake = new FakeController(onHello);
    await fake.listen();
    const { lines, logger } = capturingLogger();
    client = new AgentLinkClient({
      address: `127.0.0.1:${fake.port}`, channelCredentials: grpc.credentials.createInsecure(), credential: 'c', logger,
      backoff,
      hello: async () => ({
        agentVersion: '9.9.9', protocolVersion: 1, knownServerIds: [], host: null, allocatable: null, gamePorts: null,
        acceptsDesiredChanges: true, isolation: null, runtimes: [],
      }),
      heartbeat: async () => ({ usage: null, conditions: [], sentAtUnixMs: Date.now() }),
      ...extra,
    });
    client.start();
    return { fake, lines, silent: () => lines.filter((l) => l.event === 'controller_silent') };
  }

  it('keeps a Controller that keeps talking, and leaves it once it falls silent for the limit', async () => {
    let talking = true;
    const { fake, silent } = await start((stream, index) => {
      stream.write(welcome(400));
      if (index > 0) return;
      // A keepalive every 100 ms, thirty times (3 s, over seven limits), then nothing.
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent > 30) {
          talking = false;
          clearInterval(timer);
          return;
        }
        stream.write(keepalive);
      }, 100);
    });
    await waitFor(() => !talking, { timeoutMs: 10_000, what: 'thirty keepalives sent' });
    expect(fake.streams, 'kept while it talked').to.have.length(1);
    expect(silent()).to.deep.equal([]);
    const left = await waitFor(() => silent()[0], { timeoutMs: 5_000, what: 'controller_silent' });
    expect(left).to.deep.include({ limitMs: 400, welcomed: true, level: 40 });
    expect(Number(left.silentMs)).to.be.at.least(400);
    await waitFor(() => fake.streams.length >= 2, { what: 'the Agent dials again' });
  });

  it('gives a later stream the limit to be welcomed, then dials again', async () => {
    const { fake, silent } = await start((stream, index) => {
      // The first welcomes and goes silent; the second never answers (a frozen Controller behind a balancer); the third welcomes.
      if (index !== 1) stream.write(welcome(300));
    });
    await waitFor(() => fake.streams.length >= 3, { timeoutMs: 10_000, what: 'a third stream' });
    expect(silent().map((l) => l.welcomed)).to.deep.equal([true, false]);
    await waitFor(() => fake.heartbeats.includes(2), { what: 'heartbeats on the third stream' });
  });

  it('holds its first stream since it started to the limit known from before, and gives a new limit to keep', async () => {
    const kept: number[] = [];
    // The first stream meets a Controller that never answers (frozen behind a balancer); the second welcomes with a new limit.
    const { fake, silent } = await start((stream, index) => {
      if (index === 1) stream.write(welcome(500));
    }, undefined, { silenceLimitMs: 300, onSilenceLimit: (ms) => kept.push(ms) });
    await waitFor(() => fake.heartbeats.includes(1), { timeoutMs: 5_000, what: 'heartbeats on the second stream' });
    expect(silent().map((l) => [l.welcomed, l.limitMs])).to.deep.equal([[false, 300]]);
    expect(kept).to.deep.equal([500]);
  });

  it('among several Controllers (a limit given) waits at most a third of the limit between failed dials', async () => {
    // Each dial after the first meets a Controller that ends the stream at once (dead or leaving); uncapped, the 5th wait could be 5 s.
    const { lines } = await start((stream, index) => {
      if (index === 0) stream.write(welcome(900));
      stream.end();
    }, { initialMs: 20, maxMs: 60_000, factor: 4 });
    const waits = await waitFor(() => {
      const r = lines.filter((l) => l.event === 'reconnecting');
      return r.length >= 7 && r;
    }, { timeoutMs: 10_000, what: 'seven dials again' });
    expect(waits.map((l) => Number(l.inMs)).every((ms) => ms <= 300), `waits ${waits.map((l) => String(l.inMs)).join(', ')} ms`).to.equal(true);
    expect(Number(waits.at(-1)!.attempt), 'far enough into the backoff that the cap mattered').to.be.at.least(5);
  });

  it('keeps a Controller that states no limit (one older than the field, or alone on its store), however quiet', async () => {
    const { fake, silent } = await start((stream) => stream.write(welcome(0)));
    // Forty heartbeats at 50 ms: two seconds of silence from the Controller.
    await waitFor(() => fake.heartbeats.length >= 40, { timeoutMs: 10_000, what: 'forty heartbeats' });
    expect(fake.streams).to.have.length(1);
    expect(silent()).to.deep.equal([]);
  });
});
