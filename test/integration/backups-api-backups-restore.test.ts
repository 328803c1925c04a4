import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';
import type { AuditEventPage, Backup, BackupPage, BackupSchedulePage, ServerDetail } from '../support/api-types.js';
import { BackupsRig, simcraft } from '../support/backups-rig.js';
import { waitForServer } from '../support/fleet.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

describe('backups API — manual backups, permissions, restore workflow', function () {
  this.timeout(60_000);
  const rig = BackupsRig.register();
  const { createServer, take, finished, backupsOf, connected } = rig;

  describe('manual backups', () => {
    it('answers 202 PENDING, then SUCCEEDED with the sizes, software and plugins; the Node was asked with the team area of the path', async () => {
      const pending = await take(rig.serverId);
      expect(pending).to.include({ serverId: rig.serverId, destinationId: rig.nodeDir.id, nodeId: rig.agent.nodeId, trigger: 'MANUAL' });
      expect(pending.state).to.be.oneOf(['PENDING', 'RUNNING', 'SUCCEEDED']);
      const done = await finished(pending.id);
      expect(done).to.deep.include({ state: 'SUCCEEDED', sizeBytes: 1000, storedBytes: 100, fileCount: 3, software: simcraft, plugins: [] });
      expect(done.finishedAt).to.be.a('string');
      expect(rig.fake.localBackups.find((b) => b.backupId === pending.id)).to.deep.equal({ serverId: rig.serverId, backupId: pending.id, destinationPath: `/var/backups/cairn/teams/${rig.teamId}`, quiesce: false });
      const audit = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.create&targetId=${pending.id}`);
      expect(audit.body.items[0]).to.deep.include({ actorKind: 'USER', outcome: 'SUCCESS', targetKind: 'backup' });
      expect(audit.body.items[0].details).to.include({ serverId: rig.serverId, destinationId: rig.nodeDir.id });
    });

    it('runs one backup of a server at a time: the next waits PENDING', async () => {
      let release!: () => void;
      rig.fake.gate = new Promise<void>((resolve) => (release = resolve));
      rig.fake.mostAtOnce = 0;
      const first = await take(rig.serverId);
      const second = await take(rig.serverId);
      await waitFor(async () => (await rig.admin.get<Backup>(`/backups/${first.id}`)).body.state === 'RUNNING', { what: 'the first RUNNING' });
      expect((await rig.admin.get<Backup>(`/backups/${second.id}`)).body.state).to.equal('PENDING');
      release();
      rig.fake.gate = undefined;
      expect((await finished(first.id)).state).to.equal('SUCCEEDED');
      expect((await finished(second.id)).state).to.equal('SUCCEEDED');
      expect(rig.fake.mostAtOnce).to.equal(1);
      const list = await backupsOf(rig.serverId);
      expect(list[0].id).to.equal(second.id);
      expect(list[1].id).to.equal(first.id);
    });

    it('a failure is FAILED with the Agent\'s reason, and counted in cairn_backups_total', async () => {
      rig.fake.failNext = new AgentError('QUIESCE_FAILED', 'the game did not save within 60 s');
      const done = await finished((await take(rig.serverId)).id);
      expect(done.state).to.equal('FAILED');
      expect(done.error).to.include('QUIESCE_FAILED').and.include('did not save');
      // The record turns FAILED a moment before the backup's end is counted: read until it is.
      const metrics = await waitFor(async () => {
        const text = await (await fetch(`${rig.t.baseUrl}/metrics`)).text();
        return /cairn_backups_total\{trigger="MANUAL",result="FAILED"\} 1\b/.test(text) ? text : undefined;
      }, { what: 'the FAILED backup counted' });
      expect(metrics).to.match(/cairn_backups_total\{trigger="MANUAL",result="SUCCEEDED"\} [3-9]\b/);
    });

    it('lists newest first, pages, and filters GET /backups by server and state', async () => {
      const all = await backupsOf(rig.serverId);
      const page = await rig.admin.get<BackupPage>(`/servers/${rig.serverId}/backups?limit=2`);
      expect(page.body.items.map((b) => b.id)).to.deep.equal(all.slice(0, 2).map((b) => b.id));
      const next = await rig.admin.get<BackupPage>(`/servers/${rig.serverId}/backups?limit=2&cursor=${page.body.nextCursor}`);
      expect(next.body.items[0].id).to.equal(all[2].id);
      const failed = await rig.admin.get<BackupPage>(`/backups?serverId=${rig.serverId}&state=FAILED`);
      expect(failed.body.items.map((b) => b.state)).to.deep.equal(['FAILED']);
      expectProblem(await rig.admin.get('/backups?state=LOST'), 400, 'invalid_request', 'state');
    });

    it('validates: an unknown destination names body.destinationId', async () => {
      expectProblem(await rig.admin.post(`/servers/${rig.serverId}/backups`, { destinationId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.destinationId');
      expectProblem(await rig.admin.post(`/servers/${rig.serverId}/backups`, { destinationId: 'nope' }), 400, 'invalid_request', 'body.destinationId');
    });
  });

  describe('permissions', () => {
    it('viewers read, operators take and delete, restorers restore; others see nothing', async () => {
      const backup = (await backupsOf(rig.serverId)).find((b) => b.state === 'SUCCEEDED')!;
      expect((await rig.viewer.get(`/servers/${rig.serverId}/backups`)).status).to.equal(200);
      expect((await rig.viewer.get(`/backups/${backup.id}`)).status).to.equal(200);
      expect((await rig.viewer.get<BackupPage>('/backups')).body.items.length).to.be.greaterThan(0);
      expectProblem(await rig.viewer.post(`/servers/${rig.serverId}/backups`, {}), 403, 'forbidden');
      expectProblem(await rig.viewer.delete(`/backups/${backup.id}`), 403, 'forbidden');
      expectProblem(await rig.viewer.post(`/backups/${backup.id}/restore`, {}), 403, 'forbidden');
      expectProblem(await rig.viewer.post(`/servers/${rig.serverId}/backup-schedules`, { cron: '0 * * * *', retain: 1 }), 403, 'forbidden');
      expectProblem(await rig.operator.post(`/backups/${backup.id}/restore`, {}), 403, 'forbidden');
      expectProblem(await rig.restorer.post(`/servers/${rig.serverId}/backups`, {}), 403, 'forbidden');
      expectProblem(await rig.outsider.get(`/servers/${rig.serverId}/backups`), 404, 'not_found');
      expectProblem(await rig.outsider.get(`/backups/${backup.id}`), 404, 'not_found');
      expectProblem(await rig.outsider.delete(`/backups/${backup.id}`), 404, 'not_found');
      expect((await rig.outsider.get<BackupPage>('/backups')).body.items).to.deep.equal([]);
      expect((await rig.outsider.get<BackupSchedulePage>('/backup-schedules')).body.items).to.deep.equal([]);
      const mine = await take(rig.serverId, { destinationId: rig.nodeDir.id }, rig.operator);
      await finished(mine.id);
      expect((await rig.operator.delete(`/backups/${mine.id}`)).status).to.equal(204);
      expect(rig.fake.pruned).to.deep.include([mine.id]);
      expectProblem(await rig.admin.get(`/backups/${mine.id}`), 404, 'not_found');
      const denied = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.restore&outcome=DENIED`);
      expect(denied.body.items.length).to.be.at.least(2);
    });
  });

  describe('restore workflow (through the link)', () => {
    it('restores: PRE_RESTORE backup, stage from the Node\'s store, commit with the backup\'s software, READY', async () => {
      const backup = await finished((await take(rig.serverId)).id);
      const res = await rig.restorer.post<ServerDetail>(`/backups/${backup.id}/restore`, {});
      expect(res.status, res.text).to.equal(202);
      expect(res.body.phase).to.equal('RESTORING');
      expect(res.body.workflow).to.include({ kind: 'RESTORE' });
      const ready = await waitForServer(rig.admin, rig.serverId, (s) => s.phase === 'READY', 'READY after the restore');
      expect(ready.conditions.map((c) => c.reason)).to.not.include('RESTORE_FAILED');
      expect(rig.fake.staged).to.include(backup.id);
      expect(rig.fake.committed.at(-1)).to.deep.equal({ serverId: rig.serverId, software: 'simcraft 1.21.4' });
      const pre = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'PRE_RESTORE');
      expect(pre).to.include({ state: 'SUCCEEDED', destinationId: rig.nodeDir.id });
      const audit = await rig.admin.get<AuditEventPage>(`/audit-events?action=backup.restore&targetId=${backup.id}`);
      expect(audit.body.items[0]).to.deep.include({ outcome: 'SUCCESS' });
      expect(audit.body.items[0].details).to.include({ serverId: rig.serverId });
    });

    it('a failed commit aborts the stage and rolls back to READY with RESTORE_FAILED saying what failed', async () => {
      const backup = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      const abortsBefore = rig.fake.aborted.length;
      rig.fake.failCommit = new AgentError('SERVER_RUNNING', 'the server runs here');
      expect((await rig.admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      const rolledBack = await waitForServer(rig.admin, rig.serverId, (s) => s.phase === 'READY' && s.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'RESTORE_FAILED');
      const condition = rolledBack.conditions.find((c) => c.reason === 'RESTORE_FAILED')!;
      expect(condition.message).to.include('SERVER_RUNNING').and.include('replacing the server\'s files');
      expect(rig.fake.aborted.length).to.equal(abortsBefore + 1);
      expect((await rig.admin.post(`/servers/${rig.serverId}/conditions/RESTORE_FAILED/acknowledge`)).status).to.equal(200);
    });

    it('refuses: a FAILED backup, a NODE_DIRECTORY backup onto another Node, another template; phase_busy while restoring', async () => {
      const failed = (await backupsOf(rig.serverId)).find((b) => b.state === 'FAILED')!;
      expectProblem(await rig.admin.post(`/backups/${failed.id}/restore`, {}), 409, 'conflict', 'SUCCEEDED');
      const good = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      const elsewhere = await createServer('elsewhere', rig.other.nodeId);
      expectProblem(await rig.admin.post(`/backups/${good.id}/restore`, { serverId: elsewhere }), 409, 'conflict', 'Node');
      expectProblem(await rig.admin.post(`/backups/${good.id}/restore`, { serverId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.serverId');
    });

    it('a Controller restart mid-restore rolls the server back to READY with RESTORE_FAILED', async () => {
      const backup = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      rig.fake.hangStage = true;
      const stagedBefore = rig.fake.staged.length;
      expect((await rig.admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      await waitFor(async () => rig.fake.staged.length > stagedBefore, { what: 'the stage request' });
      await rig.t.stop();
      rig.fake.hangStage = false;
      rig.t = await rig.t.restart();
      rig.reattach();
      const s = await waitForServer(rig.admin, rig.serverId, (d) => d.phase === 'READY' && d.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'rolled back');
      expect(s.conditions.find((c) => c.reason === 'RESTORE_FAILED')!.message).to.include('restarted');
    });

    it('a commit whose answer is lost is asked about: the Node committed, so the restore finishes READY without RESTORE_FAILED', async () => {
      await rig.connected(rig.agent);
      expect((await rig.admin.post(`/servers/${rig.serverId}/conditions/RESTORE_FAILED/acknowledge`)).status).to.equal(200);
      const backup = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      const commitsBefore = rig.fake.commitRequests.length;
      rig.fake.loseCommitAnswer = true;
      expect((await rig.admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      await waitFor(async () => rig.fake.commitRequests.length > commitsBefore, { what: 'the commit request' });
      const s = await waitForServer(rig.admin, rig.serverId, (d) => d.phase === 'READY', 'READY after the restore');
      expect(s.conditions.map((c) => c.reason)).to.not.include('RESTORE_FAILED');
    });

    /** Starts a restore whose commit the Node completes but never answers, then restarts the Controller. */
    const restartAtCommit = async (forgetCommit: boolean) => {
      await rig.connected(rig.agent);
      const before = await rig.admin.get<ServerDetail>(`/servers/${rig.serverId}`);
      if (before.body.conditions.some((c) => c.reason === 'RESTORE_FAILED')) {
        expect((await rig.admin.post(`/servers/${rig.serverId}/conditions/RESTORE_FAILED/acknowledge`)).status).to.equal(200);
      }
      const backup = (await backupsOf(rig.serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      rig.fake.hangCommit = true;
      const commitsBefore = rig.fake.commitRequests.length;
      expect((await rig.admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      await waitFor(async () => rig.fake.commitRequests.length > commitsBefore, { what: 'the commit request' });
      if (forgetCommit) rig.fake.committedStages.delete(rig.fake.commitRequests.at(-1)!);
      await rig.t.stop();
      rig.fake.hangCommit = false;
      rig.t = await rig.t.restart();
      rig.reattach();
      return backup;
    };

    it('a Controller restart right after the Node committed asks the Node and finishes the restore: READY, no RESTORE_FAILED', async () => {
      const backup = await restartAtCommit(false);
      const s = await waitForServer(rig.admin, rig.serverId, (d) => d.phase === 'READY', 'READY after the restart');
      expect(s.conditions.map((c) => c.reason)).to.not.include('RESTORE_FAILED');
      expect(s.workflow).to.equal(undefined);
      expect(s.software).to.include({ template: backup.software.template, version: backup.software.version });
    });

    it('a Controller restart at a commit the Node never made rolls back with RESTORE_FAILED: the files are as they were', async () => {
      await restartAtCommit(true);
      const s = await waitForServer(rig.admin, rig.serverId, (d) => d.phase === 'READY' && d.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'rolled back');
      expect(s.conditions.find((c) => c.reason === 'RESTORE_FAILED')!.message).to.include('had not committed').and.include('as they were');
    });
  });

  describe('a deleted server\'s backups', () => {
    it('are visible to global administrators only, and restore into another server of the same template', async () => {
      await connected(rig.agent);
      const doomed = await createServer('doomed');
      const backup = await finished((await take(doomed)).id);
      await rig.admin.post(`/servers/${doomed}/backup-schedules`, { cron: '0 0 * * *', retain: 1, destinationId: rig.nodeDir.id });
      expect((await rig.admin.delete(`/servers/${doomed}`)).status).to.equal(202);
      await waitFor(async () => (await rig.admin.get(`/servers/${doomed}`)).status === 404, { what: 'the server gone' });
      expect((await rig.admin.get<Backup>(`/backups/${backup.id}`)).body).to.include({ serverId: doomed, state: 'SUCCEEDED' });
      expect((await rig.admin.get<BackupPage>(`/backups?serverId=${doomed}`)).body.items.map((b) => b.id)).to.include(backup.id);
      expectProblem(await rig.operator.get(`/backups/${backup.id}`), 404, 'not_found');
      expect((await rig.operator.get<BackupPage>('/backups?limit=200')).body.items.map((b) => b.id)).to.not.include(backup.id);
      expectProblem(await rig.operator.delete(`/backups/${backup.id}`), 404, 'not_found');
      expect((await rig.admin.get<BackupSchedulePage>('/backup-schedules?limit=200')).body.items.filter((s) => s.serverId === doomed)).to.deep.equal([]);
      expectProblem(await rig.admin.post(`/backups/${backup.id}/restore`, {}), 400, 'invalid_request', 'body.serverId');
      const res = await rig.admin.post<ServerDetail>(`/backups/${backup.id}/restore`, { serverId: rig.serverId });
      expect(res.status, res.text).to.equal(202);
      await waitForServer(rig.admin, rig.serverId, (s) => s.phase === 'READY', 'READY after restoring another server\'s backup');
      expect(rig.fake.staged.at(-1)).to.equal(backup.id);
    });
  });
});
