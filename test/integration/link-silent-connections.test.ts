import { expect } from 'chai';
import { once } from 'node:events';
import { connect } from 'node:net';
import { silentConnectionMs } from '../../src/controller/link/agent-link.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import type { Node } from '../support/api-types.js';
import { waitFor } from '../support/wait-for.js';

describe('Agent link: connections that never speak', function () {
  this.timeout(30_000);
  let t: TestController;
  before(async () => {
    t = await startTestController();
  });
  after(async () => t.dispose());

  it('closes a connection that sends nothing (no TLS hello, no HTTP/2 preface), and still serves Agents', async () => {
    const started = Date.now();
    const silent = connect(t.controller.grpcPort, '127.0.0.1');
    silent.on('error', () => undefined);
    await once(silent, 'connect');
    const { admin } = await setupAdmin(t);
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'talker');
    try {
      await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'the Agent HEALTHY' });
      await once(silent, 'close');
      const waited = Date.now() - started;
      expect(waited).to.be.within(silentConnectionMs - 100, silentConnectionMs + 10_000);
      expect((await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState).to.equal('HEALTHY');
    } finally {
      agent.stop();
    }
  });
});
