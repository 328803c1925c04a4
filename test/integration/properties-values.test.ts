import { expect } from 'chai';
import type { PropertiesChanged, PropertiesView } from '../support/api-types.js';
import { buildWorld, type World } from '../support/fixture-world.js';
import { expectProblem } from '../support/problems.js';

describe('server.properties: values of known keys are checked', function () {
  this.timeout(60_000);
  let w: World;
  const patch = (change: Record<string, string | null>) => w.admin.patch<PropertiesChanged>(`/servers/${w.serverId}/properties`, change);
  before(async () => {
    w = await buildWorld();
  });
  after(async () => w.dispose());

  it('refuses a value that does not fit its key with 400 naming body.<key>, and writes nothing', async () => {
    expectProblem(await patch({ pvp: 'nope' }), 400, 'invalid_request', "body.pvp: must be true or false, not 'nope'.");
    expectProblem(await patch({ 'view-distance': '64' }), 400, 'invalid_request', "body.view-distance: must be a whole number from 3 to 32, not '64'.");
    expectProblem(await patch({ 'max-players': 'lots' }), 400, 'invalid_request', 'body.max-players');
    expectProblem(await patch({ 'spawn-protection': '-1' }), 400, 'invalid_request', 'body.spawn-protection');
    expectProblem(await patch({ difficulty: 'insane' }), 400, 'invalid_request', "body.difficulty: must be one of peaceful, easy, normal, hard, not 'insane'.");
    expectProblem(await patch({ gamemode: 'god' }), 400, 'invalid_request', 'body.gamemode');
    expectProblem(await patch({ motd: 'fine', hardcore: 'yes' }), 400, 'invalid_request', 'body.hardcore');
    expect((await w.admin.get<PropertiesView>(`/servers/${w.serverId}/properties`)).body.properties).not.to.have.property('motd');
  });

  it('takes values that fit, removal of a known key, and any text for other keys', async () => {
    const res = await patch({ pvp: 'false', 'view-distance': '12', difficulty: 'hard', gamemode: 'creative', 'level-type': 'minecraft:flat', motd: 'nope', hardcore: null });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.properties).to.include({ pvp: 'false', 'view-distance': '12', difficulty: 'hard', gamemode: 'creative', motd: 'nope' });
  });

  it('GET says which keys are checked and what each takes', async () => {
    const view = (await w.admin.get<PropertiesView>(`/servers/${w.serverId}/properties`)).body;
    expect(view.known.pvp).to.deep.equal({ type: 'boolean' });
    expect(view.known['view-distance']).to.deep.equal({ type: 'integer', minimum: 3, maximum: 32 });
    expect(view.known.difficulty).to.deep.equal({ type: 'enum', values: ['peaceful', 'easy', 'normal', 'hard'], numbered: true });
    expect(view.known).not.to.have.property('motd');
  });
});
