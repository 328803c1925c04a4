import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { FakeAgent } from '../support/fake-agent.js';
import { GiB, waitForServer } from '../support/fleet.js';
import type {
  AuditEventPage, Backup, BackupDestination, BackupDestinationPage, BackupPage, BackupSchedule, BackupSchedulePage, Node, RolePage, ServerDetail, Team,
} from '../support/api-types.js';
import { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
const hourMs = 3600_000;

/** What the fake Node was asked to do with backups, and how it answers. */
class FakeBackups {
  localBackups: { serverId: string; backupId: string; destinationPath: string; quiesce: boolean }[] = [];
  pruned: string[][] = [];
  staged: string[] = [];
  committed: { serverId: string; software: string }[] = [];
  aborted: string[] = [];
  running = 0;
  mostAtOnce = 0;
  /** Set to hold local backups until released (one at a time per server is observed through it). */
  gate?: Promise<void>;
  failNext?: AgentError;
  failCommit?: AgentError;
  /** A stage from a local backup that never answers (a Controller restart mid-restore). */
  hangStage = false;

  constructor(agent: FakeAgent) {
    agent.client.handle('localBackup', async (p) => {
      this.localBackups.push({ serverId: p.serverId, backupId: p.backupId, destinationPath: p.destinationPath, quiesce: p.quiesce });
      this.running++;
      this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
      try {
        await this.gate;
        const failure = this.failNext;
        this.failNext = undefined;
        if (failure) throw failure;
        return { payload: 'backupResult', backupResult: { sizeBytes: 1000, storedBytes: 100, fileCount: 3 } };
      } finally {
        this.running--;
      }
    });
    agent.client.handle('localBackupPrune', async (p) => {
      this.pruned.push([...p.backupIds].sort());
      return {};
    });
    agent.client.handle('stageFromLocal', async (p) => {
      this.staged.push(p.backupId);
      if (this.hangStage) await new Promise(() => undefined);
      return {};
    });
    agent.client.handle('stageCommit', async (p) => {
      const failure = this.failCommit;
      this.failCommit = undefined;
      if (failure) throw failure;
      this.committed.push({ serverId: p.serverId, software: `${p.software?.template} ${p.software?.version}` });
      return {};
    });
    agent.client.handle('stageAbort', async (p) => {
      this.aborted.push(p.stageId);
      return {};
    });
  }
}

describe('backups API: destinations, manual and scheduled backups, retention, permissions, restore workflow', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let viewer: ApiClient;
  let operator: ApiClient;
  let restorer: ApiClient;
  let outsider: ApiClient;
  let agent: FakeAgent;
  let other: FakeAgent;
  let fake: FakeBackups;
  let teamId: string;
  let nodeDir: BackupDestination;
  let serverId: string;

  const createServer = async (name: string, nodeId = agent.nodeId) => {
    const res = await admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    return res.body.id;
  };
  const take = async (id: string, body: Record<string, unknown> = { destinationId: nodeDir.id }, client = admin) => {
    const res = await client.post<Backup>(`/servers/${id}/backups`, body);
    expect(res.status, res.text).to.equal(202);
    return res.body;
  };
  const finished = (backupId: string) => waitFor(async () => {
    const res = await admin.get<Backup>(`/backups/${backupId}`);
    return res.body.state === 'SUCCEEDED' || res.body.state === 'FAILED' ? res.body : undefined;
  }, { what: `backup ${backupId} to finish` });
  const backupsOf = async (id: string) => (await admin.get<BackupPage>(`/servers/${id}/backups?limit=200`)).body.items;
  /** The restarted Controller listens on new ports; the sessions carry over. */
  const reattach = () => {
    [admin, viewer, operator, restorer, outsider] = [admin, viewer, operator, restorer, outsider].map((c) => new ApiClient(t.baseUrl, c.auth));
  };
  const connected = (a: FakeAgent) => waitFor(async () => (await admin.get<Node>(`/nodes/${a.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-a');
    other = await FakeAgent.connect(admin, t.controller.grpcPort, 'node-b');
    fake = new FakeBackups(agent);
    await connected(agent);
    await connected(other);
    const roles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const restoreRole = await admin.post<{ id: string }>('/roles', { name: 'restorer', description: 'Reads and restores backups', permissions: ['servers.read', 'backups.read', 'backups.restore'] });
    const member = async (name: string, roleId: string | undefined) => {
      const { client, userId } = await createReadyUser(t, admin, name);
      if (roleId) expect((await admin.put(`/teams/${teamId}/members/${userId}`, { roleIds: [roleId] })).status).to.equal(200);
      return client;
    };
    viewer = await member('vera', roles.get('viewer'));
    operator = await member('otto', roles.get('operator'));
    restorer = await member('rita', restoreRole.body.id);
    outsider = await member('olga', undefined);
    nodeDir = (await admin.post<BackupDestination>('/backup-destinations', { name: 'local-disk', kind: 'NODE_DIRECTORY', path: '/var/backups/cairn' })).body;
    serverId = await createServer('alpha');
  });
  after(async () => {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning them */
    agent?.stop();
    other?.stop();
    await t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  });

  describe('destinations', () => {
    it('has the built-in CONTROLLER destination `controller` from the first start', async () => {
      const res = await admin.get<BackupDestinationPage>('/backup-destinations');
      expect(res.status, res.text).to.equal(200);
      expect(res.body.items.find((d) => d.name === 'controller')).to.include({ kind: 'CONTROLLER' }).and.not.have.property('path');
      expect(res.body.items.find((d) => d.id === nodeDir.id)).to.deep.include({ kind: 'NODE_DIRECTORY', path: '/var/backups/cairn' });
    });

    it('validates name, kind and path; names are unique regardless of case', async () => {
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'CONTROLLER', path: '/a' }), 400, 'invalid_request', 'body.path');
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY' }), 400, 'invalid_request', 'body.path');
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: 'relative/dir' }), 400, 'invalid_request', 'body.path');
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: '/a/../b' }), 400, 'invalid_request', 'body.path');
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'NODE_DIRECTORY', path: `/${'a'.repeat(1024)}` }), 400, 'invalid_request', 'body.path');
      expectProblem(await admin.post('/backup-destinations', { name: 'x'.repeat(101), kind: 'CONTROLLER' }), 400, 'invalid_request', 'body.name');
      expectProblem(await admin.post('/backup-destinations', { name: '', kind: 'CONTROLLER' }), 400, 'invalid_request', 'body.name');
      expectProblem(await admin.post('/backup-destinations', { name: 'x', kind: 'S3' }), 400, 'invalid_request', 'body.kind');
      expectProblem(await admin.post('/backup-destinations', { name: 'LOCAL-DISK', kind: 'CONTROLLER' }), 409, 'conflict');
      const longest = await admin.post<BackupDestination>('/backup-destinations', { name: 'n'.repeat(100), kind: 'NODE_DIRECTORY', path: `/${'p'.repeat(1023)}` });
      expect(longest.status, longest.text).to.equal(201);
      expect((await admin.delete(`/backup-destinations/${longest.body.id}`)).status).to.equal(204);
    });

    it('is for global administrators only; the built-in one and those in use cannot be deleted', async () => {
      expectProblem(await operator.get('/backup-destinations'), 403, 'forbidden');
      expectProblem(await operator.post('/backup-destinations', { name: 'mine', kind: 'CONTROLLER' }), 403, 'forbidden');
      const builtin = (await admin.get<BackupDestinationPage>('/backup-destinations')).body.items.find((d) => d.name === 'controller')!;
      expectProblem(await admin.delete(`/backup-destinations/${builtin.id}`), 409, 'conflict', 'built-in');
      const spare = await admin.post<BackupDestination>('/backup-destinations', { name: 'spare', kind: 'CONTROLLER' });
      expect(spare.status, spare.text).to.equal(201);
      const schedule = await admin.post<BackupSchedule>(`/servers/${serverId}/backup-schedules`, { cron: '0 3 * * *', destinationId: spare.body.id, retain: 3 });
      expectProblem(await admin.delete(`/backup-destinations/${spare.body.id}`), 409, 'conflict', 'schedule');
      expect((await admin.delete(`/backup-schedules/${schedule.body.id}`)).status).to.equal(204);
      expect((await admin.delete(`/backup-destinations/${spare.body.id}`)).status).to.equal(204);
      expectProblem(await admin.delete(`/backup-destinations/${spare.body.id}`), 404, 'not_found');
      const audit = await admin.get<AuditEventPage>(`/audit-events?action=backup-destination.delete&targetId=${spare.body.id}`);
      expect(audit.body.items.map((e) => e.outcome)).to.include('SUCCESS');
    });
  });

  describe('manual backups', () => {
    it('answers 202 PENDING, then SUCCEEDED with the sizes, software and plugins; the Node was asked with the path', async () => {
      const pending = await take(serverId);
      expect(pending).to.include({ serverId, destinationId: nodeDir.id, nodeId: agent.nodeId, trigger: 'MANUAL' });
      expect(pending.state).to.be.oneOf(['PENDING', 'RUNNING', 'SUCCEEDED']);
      const done = await finished(pending.id);
      expect(done).to.deep.include({ state: 'SUCCEEDED', sizeBytes: 1000, storedBytes: 100, fileCount: 3, software: simcraft, plugins: [] });
      expect(done.finishedAt).to.be.a('string');
      expect(fake.localBackups.find((b) => b.backupId === pending.id)).to.deep.equal({ serverId, backupId: pending.id, destinationPath: '/var/backups/cairn', quiesce: false });
      const audit = await admin.get<AuditEventPage>(`/audit-events?action=backup.create&targetId=${pending.id}`);
      expect(audit.body.items[0]).to.deep.include({ actorKind: 'USER', outcome: 'SUCCESS', targetKind: 'backup' });
      expect(audit.body.items[0].details).to.include({ serverId, destinationId: nodeDir.id });
    });

    it('runs one backup of a server at a time: the next waits PENDING', async () => {
      let release!: () => void;
      fake.gate = new Promise<void>((resolve) => (release = resolve));
      fake.mostAtOnce = 0;
      const first = await take(serverId);
      const second = await take(serverId);
      await waitFor(async () => (await admin.get<Backup>(`/backups/${first.id}`)).body.state === 'RUNNING', { what: 'the first RUNNING' });
      expect((await admin.get<Backup>(`/backups/${second.id}`)).body.state).to.equal('PENDING');
      release();
      fake.gate = undefined;
      expect((await finished(first.id)).state).to.equal('SUCCEEDED');
      expect((await finished(second.id)).state).to.equal('SUCCEEDED');
      expect(fake.mostAtOnce).to.equal(1);
      const list = await backupsOf(serverId);
      expect(list[0].id).to.equal(second.id);
      expect(list[1].id).to.equal(first.id);
    });

    it('a failure is FAILED with the Agent\'s reason, and counted in cairn_backups_total', async () => {
      fake.failNext = new AgentError('QUIESCE_FAILED', 'the game did not save within 60 s');
      const done = await finished((await take(serverId)).id);
      expect(done.state).to.equal('FAILED');
      expect(done.error).to.include('QUIESCE_FAILED').and.include('did not save');
      const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
      expect(metrics).to.match(/cairn_backups_total\{trigger="MANUAL",result="FAILED"\} 1\b/);
      expect(metrics).to.match(/cairn_backups_total\{trigger="MANUAL",result="SUCCEEDED"\} [3-9]\b/);
    });

    it('lists newest first, pages, and filters GET /backups by server and state', async () => {
      const all = await backupsOf(serverId);
      const page = await admin.get<BackupPage>(`/servers/${serverId}/backups?limit=2`);
      expect(page.body.items.map((b) => b.id)).to.deep.equal(all.slice(0, 2).map((b) => b.id));
      const next = await admin.get<BackupPage>(`/servers/${serverId}/backups?limit=2&cursor=${page.body.nextCursor}`);
      expect(next.body.items[0].id).to.equal(all[2].id);
      const failed = await admin.get<BackupPage>(`/backups?serverId=${serverId}&state=FAILED`);
      expect(failed.body.items.map((b) => b.state)).to.deep.equal(['FAILED']);
      expectProblem(await admin.get('/backups?state=LOST'), 400, 'invalid_request', 'state');
    });

    it('validates: an unknown destination names body.destinationId', async () => {
      expectProblem(await admin.post(`/servers/${serverId}/backups`, { destinationId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.destinationId');
      expectProblem(await admin.post(`/servers/${serverId}/backups`, { destinationId: 'nope' }), 400, 'invalid_request', 'body.destinationId');
    });
  });

  describe('permissions', () => {
    it('viewers read, operators take and delete, restorers restore; others see nothing', async () => {
      const backup = (await backupsOf(serverId)).find((b) => b.state === 'SUCCEEDED')!;
      expect((await viewer.get(`/servers/${serverId}/backups`)).status).to.equal(200);
      expect((await viewer.get(`/backups/${backup.id}`)).status).to.equal(200);
      expect((await viewer.get<BackupPage>('/backups')).body.items.length).to.be.greaterThan(0);
      expectProblem(await viewer.post(`/servers/${serverId}/backups`, {}), 403, 'forbidden');
      expectProblem(await viewer.delete(`/backups/${backup.id}`), 403, 'forbidden');
      expectProblem(await viewer.post(`/backups/${backup.id}/restore`, {}), 403, 'forbidden');
      expectProblem(await viewer.post(`/servers/${serverId}/backup-schedules`, { cron: '0 * * * *', retain: 1 }), 403, 'forbidden');
      expectProblem(await operator.post(`/backups/${backup.id}/restore`, {}), 403, 'forbidden');
      expectProblem(await restorer.post(`/servers/${serverId}/backups`, {}), 403, 'forbidden');
      expectProblem(await outsider.get(`/servers/${serverId}/backups`), 404, 'not_found');
      expectProblem(await outsider.get(`/backups/${backup.id}`), 404, 'not_found');
      expectProblem(await outsider.delete(`/backups/${backup.id}`), 404, 'not_found');
      expect((await outsider.get<BackupPage>('/backups')).body.items).to.deep.equal([]);
      expect((await outsider.get<BackupSchedulePage>('/backup-schedules')).body.items).to.deep.equal([]);
      const mine = await take(serverId, { destinationId: nodeDir.id }, operator);
      await finished(mine.id);
      expect((await operator.delete(`/backups/${mine.id}`)).status).to.equal(204);
      expect(fake.pruned).to.deep.include([mine.id]);
      expectProblem(await admin.get(`/backups/${mine.id}`), 404, 'not_found');
      const denied = await admin.get<AuditEventPage>(`/audit-events?action=backup.restore&outcome=DENIED`);
      expect(denied.body.items.length).to.be.at.least(2);
    });
  });

  describe('schedules', () => {
    it('validates the cron expression (five fields, croner\'s rules) and retain', async () => {
      const post = (body: Record<string, unknown>) => admin.post(`/servers/${serverId}/backup-schedules`, body);
      expectProblem(await post({ cron: '61 * * * *', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '* * * * * *', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '@daily', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: 'every hour', retain: 1 }), 400, 'invalid_request', 'body.cron');
      expectProblem(await post({ cron: '0 * * * *', retain: 0 }), 400, 'invalid_request', 'body.retain');
      expectProblem(await post({ cron: '0 * * * *', retain: 101 }), 400, 'invalid_request', 'body.retain');
      expectProblem(await post({ cron: '0 * * * *' }), 400, 'invalid_request', 'retain');
      expectProblem(await post({ cron: '0 * * * *', retain: 1, destinationId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.destinationId');
    });

    it('fires on the injected clock; retention keeps `retain` SCHEDULED backups; manual ones stay', async () => {
      const manualBefore = (await backupsOf(serverId)).filter((b) => b.trigger === 'MANUAL').map((b) => b.id).sort();
      const created = await admin.post<BackupSchedule>(`/servers/${serverId}/backup-schedules`, { cron: '0 * * * *', destinationId: nodeDir.id, retain: 2 });
      expect(created.status, created.text).to.equal(201);
      const schedule = created.body;
      expect(new Date(schedule.nextRunAt).getUTCMinutes()).to.equal(0);
      expect(new Date(schedule.nextRunAt).getTime() - t.clock.now().getTime()).to.be.within(0, hourMs);
      expect((await admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body).to.deep.equal(schedule);
      expect((await viewer.get<BackupSchedulePage>(`/servers/${serverId}/backup-schedules`)).body.items.map((s) => s.id)).to.include(schedule.id);
      expect((await viewer.get<BackupSchedulePage>('/backup-schedules')).body.items.map((s) => s.id)).to.include(schedule.id);

      const scheduled = async () => (await backupsOf(serverId)).filter((b) => b.scheduleId === schedule.id);
      const taken: string[] = [];
      for (let run = 1; run <= 4; run++) {
        const current = (await admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
        t.clock.advance(new Date(current.nextRunAt).getTime() - t.clock.now().getTime() + 1000);
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
      expect(fake.pruned.flat()).to.include.members(taken.slice(0, 2));
      expect((await backupsOf(serverId)).filter((b) => b.trigger === 'MANUAL').map((b) => b.id).sort()).to.deep.equal(manualBefore);
      const after = (await admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
      expect(after.lastRunAt).to.be.a('string');
      const audit = await admin.get<AuditEventPage>(`/audit-events?action=backup.create&targetId=${taken[3]}`);
      expect(audit.body.items[0]).to.deep.include({ actorKind: 'SYSTEM', outcome: 'SUCCESS' });
      const retained = await admin.get<AuditEventPage>(`/audit-events?action=backup.delete&targetId=${taken[0]}`);
      expect(retained.body.items[0]).to.deep.include({ actorKind: 'SYSTEM' });
      expect(retained.body.items[0].details).to.include({ reason: 'retention' });
    });

    it('a run missed while the Controller was down runs once at start', async () => {
      const schedule = (await admin.get<BackupSchedulePage>(`/servers/${serverId}/backup-schedules`)).body.items[0];
      const before = new Set((await backupsOf(serverId)).filter((b) => b.scheduleId === schedule.id).map((b) => b.id));
      await t.stop();
      t.clock.advance(3 * hourMs + 60_000);
      const restartedAt = t.clock.now().toISOString();
      t = await t.restart();
      reattach();
      await connected(agent);
      const fresh = await waitFor(async () => {
        const items = (await backupsOf(serverId)).filter((b) => b.scheduleId === schedule.id && !before.has(b.id));
        return items.length > 0 && items.every((b) => b.state === 'SUCCEEDED') ? items : undefined;
      }, { what: 'the missed run' });
      expect(fresh).to.have.length(1);
      await waitFor(async () => (await backupsOf(serverId)).filter((b) => b.scheduleId === schedule.id).length === 2, { what: 'retention after the missed run' });
      const runs = (await admin.get<AuditEventPage>(`/audit-events?action=backup.create&since=${encodeURIComponent(restartedAt)}&limit=200`)).body.items
        .filter((e) => e.details.scheduleId === schedule.id);
      expect(runs.map((e) => e.targetId)).to.deep.equal([fresh[0].id]);
      const after = (await admin.get<BackupSchedule>(`/backup-schedules/${schedule.id}`)).body;
      expect(new Date(after.nextRunAt).getTime()).to.be.greaterThan(t.clock.now().getTime());
      expect(after.lastRunAt! >= schedule.nextRunAt).to.equal(true);
    });
  });

  describe('restore workflow (through the link)', () => {
    it('restores: PRE_RESTORE backup, stage from the Node\'s store, commit with the backup\'s software, READY', async () => {
      const backup = await finished((await take(serverId)).id);
      const res = await restorer.post<ServerDetail>(`/backups/${backup.id}/restore`, {});
      expect(res.status, res.text).to.equal(202);
      expect(res.body.phase).to.equal('RESTORING');
      expect(res.body.workflow).to.include({ kind: 'RESTORE' });
      const ready = await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'READY after the restore');
      expect(ready.conditions.map((c) => c.reason)).to.not.include('RESTORE_FAILED');
      expect(fake.staged).to.include(backup.id);
      expect(fake.committed.at(-1)).to.deep.equal({ serverId, software: 'simcraft 1.21.4' });
      const pre = (await backupsOf(serverId)).find((b) => b.trigger === 'PRE_RESTORE');
      expect(pre).to.include({ state: 'SUCCEEDED', destinationId: nodeDir.id });
      const audit = await admin.get<AuditEventPage>(`/audit-events?action=backup.restore&targetId=${backup.id}`);
      expect(audit.body.items[0]).to.deep.include({ outcome: 'SUCCESS' });
      expect(audit.body.items[0].details).to.include({ serverId });
    });

    it('a failed commit aborts the stage and rolls back to READY with RESTORE_FAILED saying what failed', async () => {
      const backup = (await backupsOf(serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      const abortsBefore = fake.aborted.length;
      fake.failCommit = new AgentError('SERVER_RUNNING', 'the server runs here');
      expect((await admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      const rolledBack = await waitForServer(admin, serverId, (s) => s.phase === 'READY' && s.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'RESTORE_FAILED');
      const condition = rolledBack.conditions.find((c) => c.reason === 'RESTORE_FAILED')!;
      expect(condition.message).to.include('SERVER_RUNNING').and.include('replacing the server\'s files');
      expect(fake.aborted.length).to.equal(abortsBefore + 1);
      expect((await admin.post(`/servers/${serverId}/conditions/RESTORE_FAILED/acknowledge`)).status).to.equal(200);
    });

    it('refuses: a FAILED backup, a NODE_DIRECTORY backup onto another Node, another template; phase_busy while restoring', async () => {
      const failed = (await backupsOf(serverId)).find((b) => b.state === 'FAILED')!;
      expectProblem(await admin.post(`/backups/${failed.id}/restore`, {}), 409, 'conflict', 'SUCCEEDED');
      const good = (await backupsOf(serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      const elsewhere = await createServer('elsewhere', other.nodeId);
      expectProblem(await admin.post(`/backups/${good.id}/restore`, { serverId: elsewhere }), 409, 'conflict', 'Node');
      expectProblem(await admin.post(`/backups/${good.id}/restore`, { serverId: '00000000-0000-4000-8000-000000000000' }), 400, 'invalid_request', 'body.serverId');
    });

    it('a Controller restart mid-restore rolls the server back to READY with RESTORE_FAILED', async () => {
      const backup = (await backupsOf(serverId)).find((b) => b.trigger === 'MANUAL' && b.state === 'SUCCEEDED')!;
      fake.hangStage = true;
      const stagedBefore = fake.staged.length;
      expect((await admin.post(`/backups/${backup.id}/restore`, {})).status).to.equal(202);
      await waitFor(async () => fake.staged.length > stagedBefore, { what: 'the stage request' });
      await t.stop();
      fake.hangStage = false;
      t = await t.restart();
      reattach();
      const s = await waitForServer(admin, serverId, (d) => d.phase === 'READY' && d.conditions.some((c) => c.reason === 'RESTORE_FAILED'), 'rolled back');
      expect(s.conditions.find((c) => c.reason === 'RESTORE_FAILED')!.message).to.include('restarted');
    });
  });

  describe('a deleted server\'s backups', () => {
    it('are visible to global administrators only, and restore into another server of the same template', async () => {
      await connected(agent);
      const doomed = await createServer('doomed');
      const backup = await finished((await take(doomed)).id);
      await admin.post(`/servers/${doomed}/backup-schedules`, { cron: '0 0 * * *', retain: 1, destinationId: nodeDir.id });
      expect((await admin.delete(`/servers/${doomed}`)).status).to.equal(202);
      await waitFor(async () => (await admin.get(`/servers/${doomed}`)).status === 404, { what: 'the server gone' });
      expect((await admin.get<Backup>(`/backups/${backup.id}`)).body).to.include({ serverId: doomed, state: 'SUCCEEDED' });
      expect((await admin.get<BackupPage>(`/backups?serverId=${doomed}`)).body.items.map((b) => b.id)).to.include(backup.id);
      expectProblem(await operator.get(`/backups/${backup.id}`), 404, 'not_found');
      expect((await operator.get<BackupPage>('/backups?limit=200')).body.items.map((b) => b.id)).to.not.include(backup.id);
      expectProblem(await operator.delete(`/backups/${backup.id}`), 404, 'not_found');
      expect((await admin.get<BackupSchedulePage>('/backup-schedules?limit=200')).body.items.filter((s) => s.serverId === doomed)).to.deep.equal([]);
      expectProblem(await admin.post(`/backups/${backup.id}/restore`, {}), 400, 'invalid_request', 'body.serverId');
      const res = await admin.post<ServerDetail>(`/backups/${backup.id}/restore`, { serverId });
      expect(res.status, res.text).to.equal(202);
      await waitForServer(admin, serverId, (s) => s.phase === 'READY', 'READY after restoring another server\'s backup');
      expect(fake.staged.at(-1)).to.equal(backup.id);
    });
  });
});
