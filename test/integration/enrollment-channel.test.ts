import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { controllerChannel, enrollOver } from '../../src/agent/link/enroll.js';
import { AgentLinkClient } from '../../src/agent/link/link-client.js';
import type { AgentMessage } from '../../src/shared/link/messages.js';
import { agentLinkService, type AgentLinkHandlers } from '../../src/shared/link/proto.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitFor } from '../support/wait-for.js';

type Stream = Parameters<AgentLinkHandlers['Connect']>[0];

/** A stand-in Controller that notes the peer (address and port: one per connection) of each call. */
class PeerNotingController {
  readonly enrollPeers: string[] = [];
  readonly connectPeers: string[] = [];
  readonly streams: Stream[] = [];
  private server = new grpc.Server();
  port = 0;

  constructor() {
    const handlers: AgentLinkHandlers = {
      Enroll: (call, callback) => {
        this.enrollPeers.push(call.getPeer());
        callback(null, { nodeId: 'n1', credential: 'c' });
      },
      FetchArtifact: (call) => call.emit('error', { code: grpc.status.UNIMPLEMENTED }),
      Connect: (stream) => {
        this.connectPeers.push(stream.getPeer());
        this.streams.push(stream);
        stream.on('error', () => undefined);
        stream.on('data', (message: AgentMessage) => {
          if (message.kind === 'hello') stream.write({ kind: 'welcome', welcome: { nodeId: 'n1', heartbeatIntervalMs: 1_000, observedAddress: '127.0.0.1', silenceLimitMs: 0 } });
        });
      },
    };
    this.server.addService(agentLinkService(), handlers);
  }

  async listen(): Promise<string> {
    this.port = await new Promise<number>((resolve, reject) => this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))));
    return `127.0.0.1:${this.port}`;
  }

  close(): void {
    this.server.forceShutdown();
  }
}

/**
 * Issue 48: each enrollment used to leave a closed HTTP/2 session on the Controller, whose native
 * side only a GC frees (inside its pause). The link's first dial now goes on the enrollment's
 * connection; later dials open their own.
 */
describe('the Agent links over the connection it enrolled on', function () {
  this.timeout(20_000);
  let controller: PeerNotingController;
  let client: AgentLinkClient | undefined;

  beforeEach(() => {
    controller = new PeerNotingController();
  });
  afterEach(() => {
    client?.stop();
    client = undefined;
    controller.close();
  });

  function linkOn(address: string, enrollmentChannel: grpc.Channel): AgentLinkClient {
    return new AgentLinkClient({
      address, channelCredentials: grpc.credentials.createInsecure(), credential: 'c', enrollmentChannel, logger: silentLogger,
      backoff: { initialMs: 20, maxMs: 100, factor: 2 },
      hello: async () => ({
        agentVersion: '9.9.9', protocolVersion: 1, knownServerIds: [], host: null, allocatable: null, gamePorts: null,
        acceptsDesiredChanges: true, isolation: null, runtimes: [],
      }),
      heartbeat: async () => ({ usage: null, conditions: [], sentAtUnixMs: Date.now() }),
    });
  }

  it('the first Connect comes over the Enroll call\'s connection; a redial after the stream ends opens a new one', async () => {
    const address = await controller.listen();
    const channel = controllerChannel(address, grpc.credentials.createInsecure());
    expect((await enrollOver(channel, { enrollmentToken: 't', hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' })).credential).to.equal('c');
    client = linkOn(address, channel);
    client.start();
    await waitFor(() => client!.connected || undefined, { what: 'the first Welcome' });
    expect(controller.connectPeers).to.deep.equal(controller.enrollPeers);

    controller.streams[0].end();
    await waitFor(() => controller.connectPeers.length === 2 || undefined, { what: 'the redial' });
    expect(controller.connectPeers[1]).not.to.equal(controller.enrollPeers[0]);
    expect(channel.getConnectivityState(false)).to.equal(grpc.connectivityState.SHUTDOWN);
  });

  it('an Agent stopped before its first dial closes the enrollment\'s channel', async () => {
    const address = await controller.listen();
    const channel = controllerChannel(address, grpc.credentials.createInsecure());
    await enrollOver(channel, { enrollmentToken: 't', hostname: 'h', agentVersion: '1', enrollmentAttemptId: '' });
    client = linkOn(address, channel);
    client.stop();
    expect(channel.getConnectivityState(false)).to.equal(grpc.connectivityState.SHUTDOWN);
    expect(controller.connectPeers).to.deep.equal([]);
  });
});
