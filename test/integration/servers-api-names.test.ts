import { expect } from 'chai';
import type { AuditEventPage, ServerDetail, Team } from '../support/api-types.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig, simcraft, small } from '../support/servers-rig.js';
import { waitFor } from '../support/wait-for.js';

/** Server names: trimmed, never blank, printable, unique within a team ignoring case (contract "Server names"). */
describe('servers API — names', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const post = (teamId: string, name: string) => rig.admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: rig.big.nodeId });

  it('stores the name trimmed', async () => {
    const res = await post(rig.teams.a, '  Spaced Out  ');
    expect(res.status, res.text).to.equal(201);
    expect(res.body.name).to.equal('Spaced Out');
  });

  it('refuses a blank name, or one with characters that do not show, with 400 naming body.name', async () => {
    for (const name of ['   ', '\t', 'a\u200bb', 'evil\u202eexe', 'two\u2028lines', 'a\u0085b']) {
      expectProblem(await post(rig.teams.a, name), 400, 'invalid_request', 'body.name');
    }
  });

  it('refuses a second server of one name in a team, ignoring case, with 409 naming body.name; another team may have it', async () => {
    expect((await post(rig.teams.a, 'Survival')).status).to.equal(201);
    for (const name of ['Survival', 'survival', ' SURVIVAL ']) expectProblem(await post(rig.teams.a, name), 409, 'conflict', 'body.name');
    expect((await post(rig.teams.b, 'survival')).status).to.equal(201);
    const refused = await rig.admin.get<AuditEventPage>('/audit-events?action=server.create&outcome=FAILED');
    expect(refused.body.items.some((e) => JSON.stringify(e.details).includes('SURVIVAL'))).to.equal(true);
  });

  it('of concurrent creates of one name, exactly one succeeds', async () => {
    const team = (await rig.admin.post<Team>('/teams', { name: 'racers' })).body.id;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post(team, i % 2 ? 'Race' : 'race')));
    expect(results.filter((r) => r.status === 201)).to.have.length(1);
    for (const r of results.filter((x) => x.status !== 201)) expectProblem(r, 409, 'conflict', 'body.name');
  });

  it('a deleted server\'s name is free again', async () => {
    const team = (await rig.admin.post<Team>('/teams', { name: 'recyclers' })).body.id;
    const first = await post(team, 'again');
    expect(first.status).to.equal(201);
    await rig.ready(first.body.id);
    expect((await rig.admin.delete(`/servers/${first.body.id}`)).status).to.equal(202);
    await waitFor(async () => (await rig.admin.get(`/servers/${first.body.id}`)).status === 404, { what: 'the server gone' });
    expect((await post(team, 'again')).status).to.equal(201);
  });
});
