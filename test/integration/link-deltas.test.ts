import { expect } from 'chai';
import type { DesiredServer, DesiredState } from '../../src/shared/link/messages.js';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type { Node, ServerDetail, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 64 };
const serverCount = 12;

/** What one fake Agent heard: full states and single-server changes, in order. */
class Heard {
  readonly full: DesiredState[] = [];
  readonly changes: { serverId: string; server: DesiredServer | null }[] = [];

  constructor(agent: FakeAgent) {
    agent.client.onDesiredState((state) => this.full.push(state));
    agent.client.onDesiredChange((serverId, server) => this.changes.push({ serverId, server }));
  }
}

describe('the link sends one server\'s desired-state change, the full state only on connect and on request', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'deltas' })).body.id;
  });
  after(async () => t.dispose());

  /** A Node with `count` READY servers, created one by one through the API. */
  async function nodeWithServers(name: string, count: number, acceptsDesiredChanges: boolean) {
    const agent = await FakeAgent.connect(admin, t.controller.grpcPort, name, { cpuMillis: 16_000, memoryBytes: 16 * GiB }, { acceptsDesiredChanges });
    await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const res = await admin.post<ServerDetail>('/servers', { name: `${name}-${i}`, teamId, software: simcraft, resources: small, nodeId: agent.nodeId });
      expect(res.status, res.text).to.equal(201);
      ids.push(res.body.id);
    }
    for (const id of ids) await waitForServer(admin, id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY');
    return { agent, ids, heard: new Heard(agent) };
  }

  /** Flips one server's desired runtime state and waits until the Node reports it. */
  async function flip(id: string): Promise<void> {
    const before = (await admin.get<ServerDetail>(`/servers/${id}`)).body;
    const action = before.desiredState === 'RUNNING' ? 'stop' : 'start';
    const res = await admin.post(`/servers/${id}/${action}`);
    expect(res.status, res.text).to.equal(202);
    await waitForServer(admin, id, (s) => s.generation > before.generation && s.observedGeneration === s.generation && s.convergence === 'CONVERGED', `${action} converged`);
  }

  it('a change to one server of a Node with many sends that server alone, with its new generation', async () => {
    const { agent, ids, heard } = await nodeWithServers('many', serverCount, true);
    const lateFull = heard.full.length;
    expect(lateFull, 'a late listener gets the current state').to.equal(1);
    expect(heard.full[0].servers).to.have.length(serverCount);
    const target = ids[5];
    await flip(target);
    const generation = (await admin.get<ServerDetail>(`/servers/${target}`)).body.generation;
    expect(heard.full, 'no full state after the change').to.have.length(lateFull);
    expect(heard.changes.map((c) => [c.serverId, c.server?.generation])).to.deep.equal([[target, generation]]);
    expect(agent.desiredOf(target)?.generation).to.equal(generation);
    agent.stop();
  });

  it('a change out of sequence makes the Agent ask for the full state, and the changes after it apply again', async () => {
    const { agent, ids, heard } = await nodeWithServers('gappy', 3, true);
    const session = t.controller.services.agents.get(agent.nodeId)!;
    const before = heard.full.length;
    // A message that skips revisions, as if one went missing on the way.
    session.send({ kind: 'desiredServerChange', desiredServerChange: { revision: 10_000, server: null, removedServerId: ids[0], leaseTerm: 0 } });
    await waitFor(() => heard.full.length > before, { what: 'the full state the Agent asked for' });
    expect(heard.changes, 'the change out of sequence was not applied').to.deep.equal([]);
    expect(heard.full.at(-1)!.servers.map((s) => s.serverId).sort()).to.deep.equal([...ids].sort());
    await flip(ids[1]);
    expect(heard.changes.map((c) => c.serverId)).to.deep.equal([ids[1]]);
    agent.stop();
  });

  it('an Agent that does not take changes gets the full state on every change, as before', async () => {
    const { agent, ids, heard } = await nodeWithServers('older', 3, false);
    const before = heard.full.length;
    await flip(ids[2]);
    expect(heard.changes).to.deep.equal([]);
    expect(heard.full.length).to.be.greaterThan(before);
    expect(heard.full.at(-1)!.servers).to.have.length(3);
    agent.stop();
  });
});
