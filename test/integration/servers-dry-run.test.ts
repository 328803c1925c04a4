import { expect } from 'chai';
import type { AuditEventPage, ServerDetail } from '../support/api-types.js';
import { GiB } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig, simcraft, small } from '../support/servers-rig.js';

/**
 * `?dryRun=true` of POST and PATCH /servers: the real call's checks and refusals, answered 200
 * with the server as it would be, storing nothing, telling no Node and writing no audit event.
 */
describe('servers API — dry runs of create and change', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const { teams, create, ready, listAll } = rig;
  const body = (extra: Record<string, unknown> = {}) => ({ name: 'dry', teamId: teams.a, software: simcraft, resources: small, ...extra });
  const audited = async (action: string) => (await rig.admin.get<AuditEventPage>(`/audit-events?action=${action}&limit=200`)).body.items;

  it('a dry-run create answers 200 with the server as it would be, and stores, tells and audits nothing', async () => {
    const before = await audited('server.create');
    const dry = await rig.admin.post<ServerDetail>('/servers?dryRun=true', body({ nodeId: rig.big.nodeId }));
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body).to.include({ name: 'dry', teamId: teams.a, nodeId: rig.big.nodeId, phase: 'PROVISIONING', desiredState: 'STOPPED' });
    expect(dry.body.gamePort).to.be.a('number');
    expect((await rig.admin.get(`/servers/${dry.body.id}`)).status).to.equal(404);
    expect((await listAll(rig.admin)).map((s) => s.name)).to.not.include('dry');
    expect(rig.big.desiredOf(dry.body.id)).to.equal(undefined);
    expect(await audited('server.create')).to.have.length(before.length);
    // The same request for real is stored and audited: the dry run's silence is its own.
    const real = await rig.admin.post<ServerDetail>('/servers', body({ name: 'dry-real', nodeId: rig.big.nodeId }));
    expect(real.status, real.text).to.equal(201);
    expect(await audited('server.create')).to.have.length(before.length + 1);
  });

  it('a dry-run create is refused as the real one is: insufficient_capacity with the same detail, a taken name, no permission; none audited', async () => {
    const before = await audited('server.create');
    const huge = body({ nodeId: rig.little.nodeId, resources: { cpuMillis: 100, memoryBytes: 2 * GiB } });
    const dry = await rig.admin.post('/servers?dryRun=true', huge);
    expectProblem(dry, 409, 'insufficient_capacity');
    expect(await audited('server.create')).to.have.length(before.length);
    const real = await rig.admin.post('/servers', huge);
    expectProblem(real, 409, 'insufficient_capacity');
    expect((dry.body as { detail: string }).detail).to.equal((real.body as { detail: string }).detail);
    expect(await audited('server.create')).to.have.length(before.length + 1);

    await create(teams.a, 'taken');
    expectProblem(await rig.admin.post('/servers?dryRun=true', body({ name: 'TAKEN' })), 409, 'conflict', 'body.name');
    expectProblem(await rig.viewer.post('/servers?dryRun=true', body({ name: 'viewed' })), 403, 'forbidden');
    expect(await audited('server.create')).to.have.length(before.length + 2);
  });

  it('a dry-run change answers the server as it would be and changes nothing; over capacity it is refused like the real one', async () => {
    const server = await create(teams.a, 'resize', { nodeId: rig.little.nodeId });
    await ready(server.id);
    const before = await audited('server.update');
    const bigger = { resources: { cpuMillis: 200, memoryBytes: GiB / 8 } };
    const dry = await rig.admin.patch<ServerDetail>(`/servers/${server.id}?dryRun=true`, bigger);
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body.resources).to.deep.equal(bigger.resources);
    expect(dry.body.generation).to.equal(server.generation + 1);
    const stored = (await rig.admin.get<ServerDetail>(`/servers/${server.id}`)).body;
    expect(stored.resources).to.deep.equal(small);
    expect(stored.generation).to.equal(server.generation);
    expect(rig.little.desiredOf(server.id)?.generation).to.equal(server.generation);
    // The server's own actor was left alone: the real change after the dry run is accepted and takes the next generation.
    const real = await rig.admin.patch<ServerDetail>(`/servers/${server.id}`, bigger);
    expect(real.status, real.text).to.equal(200);
    expect(real.body.generation).to.equal(server.generation + 1);
    expect(await audited('server.update')).to.have.length(before.length + 1);

    const tooBig = { resources: { cpuMillis: 100, memoryBytes: 2 * GiB } };
    expectProblem(await rig.admin.patch(`/servers/${server.id}?dryRun=true`, tooBig), 409, 'insufficient_capacity', 'does not fit on the server\'s Node');
    expect(await audited('server.update')).to.have.length(before.length + 1);
    expectProblem(await rig.admin.patch(`/servers/${server.id}?dryRun=maybe`, tooBig), 400, 'invalid_request', 'dryRun');
  });

  it('the API reference documents dryRun on POST and PATCH /servers, with its 200 answer', async () => {
    const doc = (await rig.admin.get<{ paths: Record<string, Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>> }>('/api/v1/openapi.json')).body;
    for (const [path, method] of [['/api/v1/servers', 'post'], ['/api/v1/servers/{serverId}', 'patch']] as const) {
      const operation = doc.paths[path][method];
      expect(operation.parameters.map((p) => `${p.in}:${p.name}`), `${method} ${path}`).to.include('query:dryRun');
      expect(operation.responses, `${method} ${path}`).to.have.property('200');
    }
  });
});
