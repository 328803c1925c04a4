import { expect } from 'chai';
import type { ServerDetail } from '../support/api-types.js';
import { GiB } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { ServersRig } from '../support/servers-rig.js';

/**
 * Resizes in place take their Node's placement turn (services/servers/placement-turn.ts): through
 * the API, resizes sent together answer as if made one after the other on a Node, with the room
 * check of each, and one on another Node is not held up by them. (Whether two turns can interleave
 * is the unit test's to show: requests this quick seldom would.)
 */
describe('servers API — resizes at once', function () {
  this.timeout(30_000);
  const rig = ServersRig.register();
  const { teams, create, ready } = rig;
  /** Fits on the 1 GiB Node beside a small server, not twice. */
  const grown = 600 * 2 ** 20;
  const withMemory = (memoryBytes: number) => ({ resources: { cpuMillis: 100, memoryBytes } });

  it('two resizes sent together on a 1 GiB Node that fit one at a time but not both: one is stored, the other refused; a resize on another Node beside them is stored', async () => {
    const first = await create(teams.a, 'turn-1', { nodeId: rig.little.nodeId });
    const second = await create(teams.a, 'turn-2', { nodeId: rig.little.nodeId });
    const elsewhere = await create(teams.a, 'turn-big');
    await Promise.all([first, second, elsewhere].map((s) => ready(s.id)));

    const answers = await Promise.all([
      rig.admin.patch<ServerDetail>(`/servers/${first.id}`, withMemory(grown)),
      rig.admin.patch<ServerDetail>(`/servers/${second.id}`, withMemory(grown)),
      rig.admin.patch<ServerDetail>(`/servers/${elsewhere.id}`, withMemory(grown)),
    ]);
    const onLittle = answers.slice(0, 2);
    expect(onLittle.map((a) => a.status).sort(), onLittle.map((a) => a.text).join('\n')).to.deep.equal([200, 409]);
    expectProblem(onLittle.find((a) => a.status === 409)!, 409, 'insufficient_capacity', 'does not fit on the server\'s Node');
    expect(answers[2].status, answers[2].text).to.equal(200);

    const stored = await Promise.all([first, second].map(async (s) => (await rig.admin.get<ServerDetail>(`/servers/${s.id}`)).body.resources.memoryBytes));
    expect(stored.sort((a, b) => a - b)).to.deep.equal([GiB / 16, grown]);
  });
});
