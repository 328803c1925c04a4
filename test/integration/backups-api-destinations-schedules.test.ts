import { expect } from 'chai';
import type { AuditEventPage, BackupDestination, BackupDestinationPage, BackupSchedule, BackupSchedulePage } from '../support/api-types.js';
import { BackupsRig, hourMs } from '../support/backups-rig.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

describe('backups API — destinations, scheduled backups and retention', function () {
  this.timeout(60_000);
  const rig = BackupsRig.register();
  const { backupsOf, connected } = rig;

  describe('destinations', () => {
    it('has the built-in CONTROLLER destination `controller` from the first start', async () => {
      const res = await rig.admin.get<BackupDestinationPage>('/backup-destinations');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.items.find((d) => d.name === 'controller')).to.include({ kind: 'CONTROLLER' }).and.not.have.property('path');
      expect(res.body.items.find((d) => d.id === rig.nodeDir.id)).to.deep.include({ kind: 'NODE_DIRECTORY', path: '/var/backups/cairn' });
    });

    it('validates name, kind and path; names are unique regardless of case', async () => {
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'CONTROLLER', path: '/a' }), 400, 'invalid_request', 'body.path');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY' }), 400, 'invalid_request', 'body.path');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: 'relative/dir' }), 400, 'invalid_request', 'body.path');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: '/a/../b' }), 400, 'invalid_request', 'body.path');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: `/${'a'.repeat(1024)}` }), 400, 'invalid_request', 'body.path');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x'.repeat(101), kind: 'CONTROLLER' }), 400, 'invalid_request', 'body.name');
      expectProblem(await rig.admin.post('/backup-destinations', { name: '', kind: 'CONTROLLER' }), 400, 'invalid_request', 'body.name');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'FTP' }), 400, 'invalid_request', 'body.kind');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'S3' }), 400, 'invalid_request', 'body.endpoint: an S3 destination needs it');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'S3', endpoint: 'ftp://files', region: 'r', bucket: 'bkt', accessKeyId: 'a', secretAccessKey: 's' }), 400, 'invalid_request', 'body.endpoint: must be an http or https URL');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'x', kind: 'S3', endpoint: 'http://s3.test', region: 'r', bucket: 'bkt', prefix: 'a/../b', accessKeyId: 'a', secretAccessKey: 's' }), 400, 'invalid_request', 'body.prefix');
      expectProblem(await rig.admin.post('/backup-destinations', { name: 'LOCAL-DISK', kind: 'CONTROLLER' }), 409, 'conflict');
      const longest = await rig.admin.post<BackupDestination>('/backup-destinations', { name: 'n'.repeat(100), kind: 'NODE_DIRECTORY', path: `/${'p'.repeat(1023)}` });
      expect(longest.status, longest.text).to.equal(201);
      expect((await rig.admin.delete(`/backup-destinations/${longest.body.id}`)).status).to.equal(204);
    });

    it('is for global administrators only; the built-in one and those in use cannot be deleted', async () => {
      expectProblem(await rig.operator.get('/backup-destinations'), 403, 'forbidden');
      expectProblem(await rig.operator.post('/backup-destinations', { name: 'mine', kind: 'CONTROLLER' }), 403, 'forbidden');
      const builtin = (await rig.admin.get<BackupDestinationPage>('/backup-destinations')).body.items.find((d) => d.name === 'controller')!;
      expectProblem(await rig.admin.delete(`/backup-destinations/${builtin.id}`), 409, 'conflict', 'built-in');
      const spare = await rig.admin.post<BackupDestination>('/backup-destinations', { name: 'spare', kind: 'CONTROLLER' });
      expect(spare.status, spare.text).to.equal(201);
      const schedule = await rig.admin.post<BackupSchedule>(`/servers/${rig.serverId}/backup-schedules`, { cron: '0 3 * * *', destinationId: spare.body.id, retain: 3 });
      expectProblem(await rig.admin.delete(`/backup-destinations/${spare.body.id}`), 409, 'conflict', 'schedule');
      expect((await rig.admin.delete(`/backup-schedules/${schedule.body.id}`)).status).to.equal(204);
      expect((await rig.admin.delete(`/backup-destinations/${spare.body.id}`)).status).to.equal(204);
      expectProblem(await rig.admin.delete(`/backup-destinations/${spare.body.id}`), 404, 'not_found');
      const audit = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup-destination.delete&targetId=${spare.body.id}`);
      expect(audit.body.items.map((e) => e.outcome)).to.include('SUCCESS');
    });
  });

  describe('schedules', () => {
    it('validates the cron expression (five fields, croner\'s rules) and retain', async () => {
      const post = (body: Record<string, unknown>) => rig.admin.post(`/servers/${rig.serverId}/backup-schedules`, body);
      expectProblem(await post({ cron: '61 * * * *', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '* * * * * *', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '@daily', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: 'every hour', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '0 * * * *', retain: 0 }), 400, 'invalid_request', 'body.retain');
      expectProblem(await post({ cron: '0 * * * *', retain: 101 }), 400, 'invalid_request', 'body.retain');
      expectProblem(await post({ cron: '0 * * * *' }), 400, 'invalid_request', 'retain');
      expectProblem(await post({ cron: '0 * * * *', retain: 1, destinationId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.destinationId');
    });

    it('refuses a bad cron in Cairn\'s words, naming the field and the cron field, never the library\'s', async () => {
      const post = (cron: string) => rig.admin.post<{ detail: string }>(`/servers/${rig.serverId}/backup-schedules`, { cron, destinationId: rig.nodeDir.id, retain: 1 });
      const tooMany = await post('0 4 * * * *');
      expectProblem(tooMany, 400, 'invalid_request', "body.cron: cron must have 5 fields: minute hour day-of-month month day-of-week, e.g. '0 4 * * *'");
      const badHour = await post('0 24 * * *');
      expectProblem(badHour, 400, 'invalid_request', "body.cron: cron field 2 (hour) '24' is not valid: use *, a number 0-23");
      for (const res of [tooMany, badHour, await post('61 * * * *'), await post('5/10 * * * *')]) expect(res.body.detail).not.to.match(/CronPattern|croner/i);
    });

    it('fires on the injected clock; retention keeps `retain` SCHEDULED backups; manual ones stay', async () => {
      const manualBefore = (await backupsOf(rig.serverId)).filter((b) => b.trigger === 'MANUAL').map((b) => b.id).sort();
      const created = await rig.admin.post<BackupSchedule>(`/servers/${rig.serverId}/backup-schedules`, { cron: '0 * * * *', destinationId: rig.nodeDir.id, retain: 2 });
      expect(created.status, created.text).to.equal(201);
      const schedule = created.body;
      expect(new Date(schedule.nextRunAt).getUTCMinutes()).to.equal(0);
      expect(new Date(schedule.nextRunAt).getTime() - rig.t.clock.now().getTime()).to.be.within(0, hourMs);
      expect((await rig.admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body).to.deep.equal(schedule);
      expect((await rig.viewer.get<BackupSchedulePage>(`/servers/${rig.serverId}/backup-schedules`)).body.items.map((s) => s.id)).to.include(schedule.id);
      expect((await rig.viewer.get<BackupSchedulePage>('/backup-schedules')).body.items.map((s) => s.id)).to.include(schedule.id);

      const scheduled = async () => (await backupsOf(rig.serverId)).filter((b) => b.scheduleId === schedule.id);
      const taken: string[] = [];
      for (let run = 1; run <= 4; run++) {
        const current = (await rig.admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
        rig.t.clock.advance(new Date(current.nextRunAt).getTime() - rig.t.clock.now().getTime() + 1000);
        const newest = await waitFor(async () => {
          const items = await scheduled();
          const fresh = items.find((b) => !taken.includes(b.id) && b.state === 'SUCCEEDED');
          return fresh;
        }, { what: `scheduled run ${run}` });
        expect(newest).to.include({ trigger: 'SCHEDULED', scheduleId: schedule.id });
        taken.push(newest.id);
      }
      await waitFor(async () => (await scheduled()).length === 2, { what: 'retention to keep 2' });
      expect((await scheduled()).map((b) => b.id).sort()).to.deep.equal(taken.slice(2).sort());
      expect(rig.fake.pruned.flat()).to.include.members(taken.slice(0, 2));
      expect((await backupsOf(rig.serverId)).filter((b) => b.trigger === 'MANUAL').map((b) => b.id).sort()).to.deep.equal(manualBefore);
      const after = (await rig.admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
      expect(after.lastRunAt).to.be.a('string');
      const audit = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.create&targetId=${taken[3]}`);
      expect(audit.body.items[0]).to.deep.include({ actorKind: 'SYSTEM', outcome: 'SUCCESS' });
      const retained = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.delete&targetId=${taken[0]}`);
      expect(retained.body.items[0]).to.deep.include({ actorKind: 'SYSTEM' });
      expect(retained.body.items[0].details).to.include({ reason: 'retention' });
    });

    it('a run missed while the Controller was down runs once at start', async () => {
      const schedule = (await rig.admin.get<BackupSchedulePage>(`/servers/${rig.serverId}/backup-schedules`)).body.items[0];
      const before = new Set((await backupsOf(rig.serverId)).filter((b) => b.scheduleId === schedule.id).map((b) => b.id));
      await rig.t.stop();
      rig.t.clock.advance(3 * hourMs + 60_000);
      const restartedAt = rig.t.clock.now().toISOString();
      rig.t = await rig.t.restart();
      rig.reattach();
      await connected(rig.agent);
      const fresh = await waitFor(async () => {
        const items = (await backupsOf(rig.serverId)).filter((b) => b.scheduleId === schedule.id && !before.has(b.id));
        return items.length > 0 && items.every((b) => b.state === 'SUCCEEDED') ? items : undefined;
      }, { what: 'the missed run' });
      expect(fresh).to.have.length(1);
      await waitFor(async () => (await backupsOf(rig.serverId)).filter((b) => b.scheduleId === schedule.id).length === 2, { what: 'retention after the missed run' });
      const runs = (await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.create&since=${encodeURIComponent(restartedAt)}&limit=200`)).body.items
        .filter((e) => e.details.scheduleId === schedule.id);
      expect(runs.map((e) => e.targetId)).to.deep.equal([fresh[0].id]);
      const after = (await rig.admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
      expect(new Date(after.nextRunAt).getTime()).to.be.greaterThan(rig.t.clock.now().getTime());
      expect(after.lastRunAt! >= schedule.nextRunAt).to.equal(true);
    });
  });
});
