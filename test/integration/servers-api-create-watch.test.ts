import { expect } from 'chai';
import type { Node, ServerDetail, ServerWatchEvent, Team, TemplatePage } from '../support/api-types.js';
import { EventStreamReader } from '../support/event-stream.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB } from '../support/fleet.js';
import { privateGamePorts } from '../support/game-ports.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig, simcraft, small } from '../support/servers-rig.js';
import { waitFor } from '../support/wait-for.js';

/** The generations a server's change events carried, after the opening snapshot (up to `synced`). */
const serverGenerations = (events: ServerWatchEvent[], serverId: string) =>
  events.slice(events.findIndex((e) => e.event === 'synced') + 1).flatMap((e) => (e.event === 'server' && e.data.id === serverId ? [e.data.generation] : []));

describe('servers API — create rules, watch', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const { teams, extraAgents, create, ready, listAll } = rig;

  describe('create rules', () => {
    const post = (body: Record<string, unknown>) => rig.admin.post<ServerDetail>('/servers', { name: 'rules', teamId: teams.a, software: simcraft, resources: small, ...body });

    it('refuses an unknown template or version, and a proxy template', async () => {
      expectProblem(await post({ software: { template: 'nope', version: '1' } }), 400, 'invalid_request', 'template');
      expectProblem(await post({ software: { template: 'simcraft', version: '0.0.1' } }), 400, 'invalid_request', 'version');
      expectProblem(await post({ software: { template: 'simproxy', version: (await rig.admin.get<TemplatePage>('/templates')).body.items.find((x) => x.id === 'simproxy')?.versions[0] } }), 400, 'invalid_request', '/network/proxy');
    });

    it('refuses network membership for a template that is not a network member, on create and on PATCH', async () => {
      expectProblem(await post({ software: { template: 'loner', version: '1.21.4' }, inNetwork: true }), 409, 'not_network_capable');
      const member = await post({ inNetwork: true });
      expect(member.status, member.text).to.equal(201);
      expect(member.body.inNetwork).to.equal(true);
      const loner = await create(teams.a, 'loner', { software: { template: 'loner', version: '1.21.4' } });
      await ready(loner.id);
      expectProblem(await rig.admin.patch(`/servers/${loner.id}`, { inNetwork: true }), 409, 'not_network_capable');
    });

    it('insufficient_capacity when no Node has room, or the named Node is disabled; an unknown Node is invalid', async () => {
      // Each refusal says how much room there is, so the reservation can be shrunk to fit.
      const none = await post({ nodeId: undefined, resources: { cpuMillis: 100_000, memoryBytes: GiB } });
      expectProblem(none, 409, 'insufficient_capacity');
      expect((none.body as unknown as { detail: string }).detail).to.match(/^No Node that accepts placements has room for this reservation \(100000m CPU, 1\.0 GiB memory\)\. Free: big \d+m CPU, [\d.]+ GiB memory( \(reserved by: [^)]+\))?; little \d+m CPU, \d+ MiB memory( \(reserved by: [^)]+\))?\.$/);
      const named = await post({ nodeId: rig.little.nodeId, resources: { cpuMillis: 100, memoryBytes: 2 * GiB } });
      expectProblem(named, 409, 'insufficient_capacity');
      expect((named.body as unknown as { detail: string }).detail).to.match(/^The reservation \(100m CPU, 2\.0 GiB memory\) does not fit on that Node: it has \d+m CPU, \d+ MiB memory free(; reserved by: .+)?\.$/);
      expect((await rig.admin.post(`/nodes/${rig.little.nodeId}/disable`)).status).to.equal(200);
      try {
        expectProblem(await post({ nodeId: rig.little.nodeId }), 409, 'insufficient_capacity');
      } finally {
        await rig.admin.post(`/nodes/${rig.little.nodeId}/enable`);
      }
      expectProblem(await post({ nodeId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request');
    });

    it('a game port is the lowest of the Node\'s range that no server on the same host holds; an exhausted range is insufficient_capacity', async () => {
      const { first } = await privateGamePorts();
      const east = await FakeAgent.connect(rig.admin, rig.t.controller.grpcPort, 'east', undefined, { hostname: 'shared.test', gamePorts: { first, last: first + 1 } });
      extraAgents.push(east);
      const west = await FakeAgent.connect(rig.admin, rig.t.controller.grpcPort, 'west', undefined, { hostname: 'shared.test', gamePorts: { first, last: first + 2 } });
      extraAgents.push(west);
      for (const agent of [east, west]) {
        await waitFor(async () => (await rig.admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
      }
      expect((await rig.admin.get<Node>(`/nodes/${west.nodeId}`)).body.status.gamePorts).to.deep.equal({ first, last: first + 2 });
      const team = (await rig.admin.post<Team>('/teams', { name: 'ports' })).body.id;
      let created = 0;
      // Names are unique in a team: one per server, not per Node.
      const port = async (nodeId: string) => (await create(team, `on-${nodeId}-${created++}`, { nodeId })).gamePort;
      expect(await port(east.nodeId)).to.equal(first);
      expect(await port(west.nodeId)).to.equal(first + 1);
      expectProblem(await post({ teamId: team, nodeId: east.nodeId }), 409, 'insufficient_capacity');
      expect(await port(west.nodeId)).to.equal(first + 2);
    });
  });

  describe('GET /servers/watch', () => {
    const streams: EventStreamReader<ServerWatchEvent>[] = [];
    const open = async (client: ApiClient) => {
      const stream = await EventStreamReader.open<ServerWatchEvent>(client, '/servers/watch');
      streams.push(stream);
      return stream;
    };
    after(() => streams.forEach((s) => s.close()));

    it('needs a signed-in caller', async () => {
      expectProblem(await rig.admin.anonymous().get('/servers/watch'), 401, 'unauthenticated');
    });

    it('sends a `server` event in the list-item shape for changes the caller can read, none for others, `server-deleted` on deletion', async () => {
      const a = await create(teams.a, 'watched-a');
      const b = await create(teams.b, 'watched-b');
      await ready(a.id);
      await ready(b.id);
      const viewerStream = await open(rig.viewer);
      const adminStream = await open(rig.admin);
      expect(viewerStream.status).to.equal(200);
      expect(viewerStream.contentType).to.match(/^text\/event-stream/);

      expect((await rig.admin.post(`/servers/${b.id}/start`)).status).to.equal(202);
      expect((await rig.admin.post(`/servers/${a.id}/start`)).status).to.equal(202);
      await adminStream.next((e) => e.event === 'server' && e.data.id === b.id && e.data.desiredState === 'RUNNING', 'B started, for the administrator');
      const seen = await viewerStream.next((e) => e.event === 'server' && e.data.id === a.id && e.data.desiredState === 'RUNNING', 'A started, for the viewer');
      const item = (await listAll(rig.admin, `&teamId=${teams.a}`)).find((s) => s.id === a.id);
      expect(Object.keys(seen.data).sort()).to.deep.equal(Object.keys(item ?? {}).sort());
      await viewerStream.next((e) => e.event === 'server' && e.data.id === a.id && e.data.convergence === 'CONVERGED' && e.data.runtimeState === 'RUNNING', 'A converged');
      await adminStream.next((e) => e.event === 'server' && e.data.id === b.id && e.data.runtimeState === 'RUNNING', 'B converged');

      expect((await rig.admin.delete(`/servers/${a.id}`)).status).to.equal(202);
      const deleted = await viewerStream.next((e) => e.event === 'server-deleted', 'server-deleted');
      expect(deleted.data).to.deep.equal({ id: a.id });
      expect(viewerStream.comments[0]).to.equal('open');
      expect(viewerStream.events.filter((e) => (e.event === 'server' && e.data.teamId === teams.b) || (e.event !== 'synced' && e.data.id === b.id))).to.deep.equal([]);
    });

    it('delivers a server\'s events in the order they happened', async () => {
      const server = await create(teams.a, 'ordered');
      await ready(server.id);
      const stream = await open(rig.viewer);
      for (let i = 0; i < 5; i++) {
        expect((await rig.admin.post(`/servers/${server.id}/${i % 2 === 0 ? 'start' : 'stop'}`)).status).to.equal(202);
      }
      const last = (await rig.admin.get<ServerDetail>(`/servers/${server.id}`)).body.generation;
      await stream.next((e) => e.event === 'server' && e.data.id === server.id && e.data.generation === last, 'the last generation');
      const generations = serverGenerations(stream.events, server.id);
      expect(generations).to.deep.equal([...generations].sort((x, y) => x - y));
    });

    it('keeps the order when the permission check of an earlier event is slower than a later one\'s', async () => {
      const server = await create(teams.a, 'ordered-slow');
      await ready(server.id);
      const stream = await open(rig.viewer);
      await stream.next((e) => e.event === 'synced', 'the end of the snapshot');
      const access = rig.t.controller.services.access;
      const may = access.may.bind(access);
      // The checks for the start's event wait; the stop's answer at once, so without ordering they would overtake.
      let slow = true;
      access.may = async (...args: Parameters<typeof may>) => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 100));
        return may(...args);
      };
      try {
        const first = await rig.admin.post<ServerDetail>(`/servers/${server.id}/start`);
        slow = false;
        const second = await rig.admin.post<ServerDetail>(`/servers/${server.id}/stop`);
        await stream.next((e) => e.event === 'server' && e.data.id === server.id && e.data.generation === second.body.generation, 'the stop');
        const generations = serverGenerations(stream.events, server.id);
        // A report of the READY generation (an observed status) may still arrive after the snapshot: only the start's and later count.
        expect(generations.find((g) => g >= first.body.generation)).to.equal(first.body.generation);
        expect(generations).to.deep.equal([...generations].sort((x, y) => x - y));
      } finally {
        access.may = may;
      }
    });
  });
});
