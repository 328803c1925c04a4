import { expect } from 'chai';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setupAdmin, startTestController, testStoreIsMongo, type TestController } from '../support/controller.js';
import type { AuditEventPage, Team } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { waitFor } from '../support/wait-for.js';

const day = 24 * 3600_000;
// Sessions that outlive the days the clock jumps here.
const sessionPolicy = { absoluteSeconds: 10_000 * 24 * 3600, idleSeconds: 10_000 * 24 * 3600 };

describe('audit retention', () => {
  let t: TestController;
  let admin: ApiClient;
  afterEach(() => t.stop());

  const actions = async () => (await admin.get<AuditEventPage>('/audit-events?limit=200')).body.items.map((e) => `${e.action} ${e.targetId}`);

  it('deletes events older than --audit-retention-days at the hourly prune; newer ones stay, ids carry on', async () => {
    t = await startTestController({ extraArgs: ['--audit-retention-days', '2'], sessionPolicy });
    ({ admin } = await setupAdmin(t));
    const old = (await admin.post<Team>('/teams', { name: 'old-news' })).body;
    t.clock.advance(1.5 * day);
    const recent = (await admin.post<Team>('/teams', { name: 'recent' })).body;
    const recentEvent = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    expect(await actions()).to.include(`team.create ${old.id}`);

    // Three days after the first team: its day is past retention, the second team's is not.
    t.clock.advance(1.5 * day + 60_000);
    await waitFor(async () => !(await actions()).includes(`team.create ${old.id}`), { what: 'the old events pruned' });
    expect(await actions()).to.include(`team.create ${recent.id}`);
    if (!testStoreIsMongo) {
      // The embedded store keeps a file a day: the pruned days' files are gone too.
      const files = await readdir(join(t.dataDir, 'store', 'audit'));
      expect(files.filter((n) => n.endsWith('.jsonl')).length).to.be.lessThan(3);
    }

    await admin.post<Team>('/teams', { name: 'after-prune' });
    const latest = (await admin.get<AuditEventPage>('/audit-events?limit=1')).body.items[0];
    expect(latest.id).to.be.greaterThan(recentEvent.id);
  });

  it('keeps everything with 0', async () => {
    t = await startTestController({ extraArgs: ['--audit-retention-days', '0'], sessionPolicy });
    ({ admin } = await setupAdmin(t));
    const team = (await admin.post<Team>('/teams', { name: 'kept' })).body;
    t.clock.advance(4000 * day);
    await admin.post<Team>('/teams', { name: 'much-later' });
    expect(await actions()).to.include(`team.create ${team.id}`);
  });
});
