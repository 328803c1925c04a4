import { expect } from 'chai';
import { StoreFullError } from '../../src/controller/core/store-full.js';
import type { AuditEventPage, Team, TeamPage } from '../support/api-types.js';
import { setupAdmin, startTestController, testStoreIsMongo, type TestController } from '../support/controller.js';
import type { ApiClient } from '../support/http.js';

/**
 * The moment controller-disk-full.test.ts can only hit by chance: the team's write fits on the
 * disk and its audit event does not. The event is written into the room kept for it, so the
 * answer is a 201 with its event, never a 507 for a team that exists.
 */
describe('audit events: the room kept for them on the Controller\'s disk', function () {
  this.timeout(60_000);
  let t: TestController | undefined;
  let admin: ApiClient;

  before(async function () {
    if (testStoreIsMongo) this.skip();
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => {
    await t?.dispose();
  });

  it('a change whose event finds the disk full is still answered 201 and audited', async () => {
    const log = t!.controller.repos.audit;
    const append = log.append.bind(log);
    let refusals = 0;
    log.append = async (event) => {
      if (event.action === 'team.create' && refusals++ === 0) throw new StoreFullError(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      return append(event);
    };
    try {
      const res = await admin.post<Team>('/teams', { name: 'squeezed' });
      expect(res.status, res.text).to.equal(201);
      const events = (await admin.get<AuditEventPage>(`/audit-events?action=team.create&targetId=${res.body.id}`)).body.items;
      expect(events.map((e) => e.outcome)).to.deep.equal(['SUCCESS']);
    } finally {
      log.append = append;
    }
    expect(refusals).to.equal(2);
    const names = (await admin.get<TeamPage>('/teams?limit=200')).body.items.map((team) => team.name);
    expect(names).to.include('squeezed');
  });
});
