import { expect } from 'chai';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { TemplatePage } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';

const simcraftDescription = 'A small program shipped with Cairn that behaves like a Paper server: server.properties, a TCP game port, console commands and plugins/*.jar. '
  + 'Runs offline; meant for tests and trying Cairn out.';

describe('GET /api/v1/templates', () => {
  let t: TestController;
  let admin: ApiClient;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('lists the ten shipped templates with only their public fields, named for people', async () => {
    const res = await admin.get<TemplatePage>('/templates');
    expect(res.status).to.equal(200);
    expect(res.body.nextCursor).to.equal(undefined);
    expect(res.body.items.map((i) => i.id)).to.deep.equal(['fabric', 'folia', 'forge', 'modrinth', 'neoforge', 'paper', 'simcraft', 'simproxy', 'vanilla', 'velocity']);
    expect(res.body.items[6]).to.deep.equal({
      id: 'simcraft', name: 'Simcraft (simulated Minecraft server)', description: simcraftDescription, kind: 'GAME_SERVER', networkMember: true, platform: 'paper', versions: ['1.21.4', '1.21.1', '1.20.6', '1.21.4-crash'],
    });
  });

  it('pages with limit and cursor', async () => {
    const first = await admin.get<TemplatePage>('/templates?limit=2');
    expect(first.body.items.map((i) => i.id)).to.deep.equal(['fabric', 'folia']);
    const second = await admin.get<TemplatePage>(`/templates?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((i) => i.id)).to.deep.equal(['forge', 'modrinth']);
    const third = await admin.get<TemplatePage>(`/templates?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body.items.map((i) => i.id)).to.deep.equal(['neoforge', 'paper', 'simcraft']);
    const fourth = await admin.get<TemplatePage>(`/templates?limit=2&cursor=${third.body.nextCursor}`);
    expect(fourth.body.items.map((i) => i.id)).to.deep.equal(['simproxy', 'vanilla']);
    const last = await admin.get<TemplatePage>(`/templates?limit=2&cursor=${fourth.body.nextCursor}`);
    expect(last.body.items.map((i) => i.id)).to.deep.equal(['velocity']);
    expect(last.body.nextCursor).to.equal(undefined);
  });

  it('needs a signed-in caller', async () => {
    expect((await t.api.get('/templates')).status).to.equal(401);
  });
});
