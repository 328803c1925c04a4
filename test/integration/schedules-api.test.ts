import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';
import type { AuditEventPage, BackupDestination, Schedule, SchedulePage, ScheduleRun } from '../support/api-types.js';
import { allPages, expectProblem } from '../support/problems.js';
import { SchedulesRig } from '../support/schedules-rig.js';
import { createReadyUser } from '../support/controller.js';
import { waitForServer } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';

describe('schedules API: records, bad input, permissions, runs now and their audit', function () {
  this.timeout(60_000);
  const rig = SchedulesRig.register();
  const post = (body: Record<string, unknown>) => rig.admin.post(`/servers/${rig.serverId}/schedules`, { name: 'n', cron: '0 4 * * *', ...body });
  const task = (t: Record<string, unknown>) => post({ tasks: [t] });

  it('creates, reads, lists, changes and deletes a schedule, showing its next minute in its time zone', async () => {
    const created = await rig.create({ name: 'tokyo mornings', cron: ' 0  4 * * * ', timezone: 'asia/tokyo', tasks: [{ action: 'command', command: 'say good morning' }, { action: 'stop', offsetSeconds: 30, continueOnFailure: true }] });
    expect(created).to.deep.include({ serverId: rig.serverId, name: 'tokyo mornings', cron: '0 4 * * *', timezone: 'Asia/Tokyo', enabled: true, onlyWhenRunning: false });
    expect(created.tasks).to.deep.equal([{ action: 'command', command: 'say good morning' }, { action: 'stop', offsetSeconds: 30, continueOnFailure: true }]);
    // 04:00 in Tokyo is 19:00 UTC.
    expect(created.nextRunAt).to.match(/T19:00:00\.000Z$/);
    expect(Date.parse(created.nextRunAt!) - rig.t.clock.now().getTime()).to.be.within(0, 24 * 3600_000);
    expect(created).to.not.have.property('lastRun');
    expect((await rig.admin.get<Schedule>(`/schedules/${created.id}`)).body).to.deep.equal(created);
    expect((await rig.viewer.get<Schedule>(`/schedules/${created.id}`)).status).to.equal(200);

    const changed = await rig.admin.patch<Schedule>(`/schedules/${created.id}`, { timezone: 'UTC', enabled: false });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.include({ timezone: 'UTC', enabled: false, name: 'tokyo mornings' }).and.not.have.property('nextRunAt');
    const enabled = await rig.admin.patch<Schedule>(`/schedules/${created.id}`, { enabled: true });
    expect(enabled.body.nextRunAt).to.match(/T04:00:00\.000Z$/);

    expect((await rig.admin.delete(`/schedules/${created.id}`)).status).to.equal(204);
    expectProblem(await rig.admin.get(`/schedules/${created.id}`), 404, 'not_found');
    const audit = (await rig.admin.get<AuditEventPage>(`/audit-events?targetId=${created.id}`)).body.items.map((e) => `${e.action} ${e.outcome}`);
    expect(audit).to.include.members(['schedule.create SUCCESS', 'schedule.update SUCCESS', 'schedule.delete SUCCESS']);
  });

  it('refuses bad input with invalid_request naming the field', async () => {
    expectProblem(await post({ cron: '61 * * * *', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.cron');
    expectProblem(await post({ cron: '* * * * * *', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.cron');
    expectProblem(await post({ cron: '@daily', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.cron');
    expectProblem(await post({ cron: '0 0 31 2 *', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.cron');
    expectProblem(await post({ timezone: 'Mars/Olympus', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.timezone');
    expectProblem(await post({ timezone: '+01:00', tasks: [{ action: 'start' }] }), 400, 'invalid_request', 'body.timezone');
    expectProblem(await task({ action: 'command' }), 400, 'invalid_request', 'body.tasks[0].command');
    expectProblem(await task({ action: 'command', command: '/say hi' }), 400, 'invalid_request', 'body.tasks[0].command');
    expectProblem(await task({ action: 'command', command: 'say\nhi' }), 400, 'invalid_request', 'body.tasks[0].command');
    expectProblem(await task({ action: 'start', command: 'say hi' }), 400, 'invalid_request', 'body.tasks[0].command');
    expectProblem(await task({ action: 'backup' }), 400, 'invalid_request', 'body.tasks[0].destinationId');
    expectProblem(await task({ action: 'backup', destinationId: '01900000-0000-7000-8000-000000000000' }), 400, 'invalid_request', 'body.tasks[0].destinationId');
    expectProblem(await task({ action: 'command', command: 'save-all', retain: 3 }), 400, 'invalid_request', 'body.tasks[0].retain');
    expectProblem(await task({ action: 'stop', warnSeconds: [10] }), 400, 'invalid_request', 'body.tasks[0].warnSeconds');
    expectProblem(await task({ action: 'start', warnCommand: 'say soon' }), 400, 'invalid_request', 'body.tasks[0].warnCommand');
    expectProblem(await task({ action: 'restart', warnCommand: '/say soon' }), 400, 'invalid_request', 'body.tasks[0].warnCommand');
    expectProblem(await post({ tasks: [{ action: 'start' }, { action: 'stop', destinationId: '01900000-0000-7000-8000-000000000000' }] }), 400, 'invalid_request', 'body.tasks[1].destinationId');
    expectProblem(await task({ action: 'start', offsetSeconds: 3601 }), 400, 'invalid_request', 'offsetSeconds');
    expectProblem(await task({ action: 'start', offsetSeconds: -1 }), 400, 'invalid_request', 'offsetSeconds');
    expectProblem(await task({ action: 'restart', warnSeconds: [0] }), 400, 'invalid_request', 'warnSeconds');
    expectProblem(await task({ action: 'reboot' }), 400, 'invalid_request', 'action');
    expectProblem(await post({ tasks: [] }), 400, 'invalid_request', 'body.tasks');
    expectProblem(await post({ tasks: Array.from({ length: 21 }, () => ({ action: 'start' })) }), 400, 'invalid_request', 'body.tasks');
    const twenty = await post({ tasks: Array.from({ length: 20 }, () => ({ action: 'start' })) });
    expect(twenty.status, twenty.text).to.equal(201);
    const id = (twenty.body as Schedule).id;
    expectProblem(await rig.admin.patch(`/schedules/${id}`, { cron: 'every day' }), 400, 'invalid_request', 'body.cron');
    expectProblem(await rig.admin.patch(`/schedules/${id}`, { timezone: 'Nowhere' }), 400, 'invalid_request', 'body.timezone');
    expectProblem(await rig.admin.patch(`/schedules/${id}`, { tasks: [{ action: 'backup' }] }), 400, 'invalid_request', 'body.tasks[0].destinationId');
    expectProblem(await rig.admin.patch(`/schedules/${id}`, { unknown: 1 }), 400, 'invalid_request');
    expect((await rig.admin.get<Schedule>(`/schedules/${id}`)).body.cron).to.equal('0 4 * * *');
    expect((await rig.admin.delete(`/schedules/${id}`)).status).to.equal(204);
  });

  it('takes a backup task to an existing destination, with retain', async () => {
    const destination = (await rig.admin.post<BackupDestination>('/backup-destinations', { name: 'disk', kind: 'CONTROLLER' })).body;
    const made = await rig.create({ tasks: [{ action: 'command', command: 'save-all' }, { action: 'backup', destinationId: destination.id, retain: 3 }] });
    expect(made.tasks[1]).to.deep.equal({ action: 'backup', destinationId: destination.id, retain: 3 });
    expect((await rig.admin.delete(`/schedules/${made.id}`)).status).to.equal(204);
  });

  it('needs servers.update and each task\'s permission to edit; servers.read to read; outsiders see nothing', async () => {
    expectProblem(await rig.viewer.post(`/servers/${rig.serverId}/schedules`, { name: 'v', cron: '0 4 * * *', tasks: [{ action: 'start' }] }), 403, 'forbidden');
    // The scheduler has no backups.create.
    const destinations = (await rig.admin.get<{ items: BackupDestination[] }>('/backup-destinations')).body.items;
    expectProblem(await rig.scheduler.post(`/servers/${rig.serverId}/schedules`, { name: 'b', cron: '0 4 * * *', tasks: [{ action: 'backup', destinationId: destinations[0].id }] }), 403, 'forbidden', 'backups.create');
    const mine = await rig.create({ name: 'mine' }, rig.scheduler);
    expect(mine.updatedBy).to.equal(rig.schedulerId);
    expectProblem(await rig.viewer.patch(`/schedules/${mine.id}`, { name: 'x' }), 403, 'forbidden');
    expectProblem(await rig.viewer.delete(`/schedules/${mine.id}`), 403, 'forbidden');
    expectProblem(await rig.viewer.post(`/schedules/${mine.id}/run`), 403, 'forbidden');
    expect((await rig.viewer.get(`/schedules/${mine.id}/runs`)).status).to.equal(200);
    const { client: outsider } = await createReadyUser(rig.t, rig.admin, 'olga');
    expectProblem(await outsider.get(`/schedules/${mine.id}`), 404, 'not_found');
    expectProblem(await outsider.get(`/servers/${rig.serverId}/schedules`), 404, 'not_found');
    expect((await rig.admin.delete(`/schedules/${mine.id}`)).status).to.equal(204);
  });

  it('runs now as the editor: the command sent and audited with details.scheduleId; SKIPPED forbidden once the editor lost the permission', async () => {
    const schedule = await rig.create({ name: 'hello', tasks: [{ action: 'command', command: 'say scheduled hello' }] }, rig.scheduler);
    const run = await rig.admin.post<ScheduleRun>(`/schedules/${schedule.id}/run`);
    expect(run.status, run.text).to.equal(202);
    expect(run.body).to.include({ scheduleId: schedule.id, result: 'RUNNING' });
    const done = await rig.runOf(schedule.id, (r) => r.id === run.body.id && r.result !== 'RUNNING');
    expect(done).to.deep.include({ result: 'SUCCEEDED', tasks: [{ action: 'command', result: 'SUCCEEDED' }] });
    expect(rig.commands).to.include(`${rig.serverId} say scheduled hello`);
    const commandAudit = (await rig.admin.get<AuditEventPage>(`/audit-events?action=server.command&targetId=${rig.serverId}`)).body.items;
    const ofSchedule = commandAudit.find((e) => e.details.scheduleId === schedule.id);
    expect(ofSchedule).to.include({ actorUserId: rig.schedulerId, outcome: 'SUCCESS' });
    expect((await rig.admin.get<AuditEventPage>(`/audit-events?action=schedule.run&targetId=${schedule.id}`)).body.items.map((e) => e.outcome)).to.deep.equal(['SUCCESS']);
    expect((await rig.admin.get<Schedule>(`/schedules/${schedule.id}`)).body.lastRun).to.deep.include({ id: run.body.id, result: 'SUCCEEDED' });

    const narrower = await rig.admin.post<{ id: string }>('/roles', { name: 'no-commands', description: 'Schedules without commands', permissions: ['servers.read', 'servers.update', 'servers.start'] });
    expect((await rig.admin.put(`/teams/${rig.teamId}/members/${rig.schedulerId}`, { roleIds: [narrower.body.id] })).status).to.equal(200);
    try {
      const skipped = await rig.admin.post<ScheduleRun>(`/schedules/${schedule.id}/run`);
      expect(skipped.status, skipped.text).to.equal(202);
      expect(skipped.body).to.deep.include({ result: 'SKIPPED', reason: 'forbidden', tasks: [{ action: 'command', result: 'NOT_RUN' }] });
      expect(rig.commands.filter((c) => c.endsWith('say scheduled hello'))).to.have.length(1);
    } finally {
      await rig.admin.put(`/teams/${rig.teamId}/members/${rig.schedulerId}`, { roleIds: [rig.schedulerRoleId] });
    }
    expect((await rig.admin.delete(`/schedules/${schedule.id}`)).status).to.equal(204);
  });

  it('skips a run not_running under onlyWhenRunning, and runs a failing task to FAILED with the rest NOT_RUN unless continueOnFailure', async () => {
    const stopped = await rig.createServer('beta');
    expect((await rig.admin.post(`/servers/${stopped}/stop`)).status).to.be.oneOf([200, 202]);
    await waitForServer(rig.admin, stopped, (s) => s.status.runtimeState === 'STOPPED', 'STOPPED');
    const guarded = await rig.create({ onlyWhenRunning: true }, rig.admin, stopped);
    const skipped = await rig.admin.post<ScheduleRun>(`/schedules/${guarded.id}/run`);
    expect(skipped.body).to.include({ result: 'SKIPPED', reason: 'not_running' });

    rig.agent.client.handle('consoleCommand', async ({ command }) => {
      if (command === 'fail') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      rig.commands.push(`${stopped} ${command}`);
      return {};
    });
    const failing = await rig.create({ tasks: [{ action: 'command', command: 'fail', continueOnFailure: true }, { action: 'command', command: 'after' }, { action: 'command', command: 'fail' }, { action: 'command', command: 'never' }] }, rig.admin, stopped);
    const run = await rig.admin.post<ScheduleRun>(`/schedules/${failing.id}/run`);
    const done = await rig.runOf(failing.id, (r) => r.id === run.body.id && r.result !== 'RUNNING');
    expect(done.result).to.equal('FAILED');
    expect(done.tasks.map((t) => t.result)).to.deep.equal(['FAILED', 'SUCCEEDED', 'FAILED', 'NOT_RUN']);
    expect(done.tasks[0].detail).to.match(/not running/i);
    expect(rig.commands).to.include(`${stopped} after`).and.not.include(`${stopped} never`);
  });

  it('pages schedules in creation order and runs newest first; deleting the server deletes its schedules', async () => {
    const serverId = await rig.createServer('gamma');
    const made: Schedule[] = [];
    for (const name of ['a', 'b', 'c']) made.push(await rig.create({ name }, rig.admin, serverId));
    const listed = await allPages<SchedulePage>((cursor) => rig.admin.get(`/servers/${serverId}/schedules?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
    expect(listed.map((s) => s.name)).to.deep.equal(['a', 'b', 'c']);
    const runIds: string[] = [];
    for (let i = 0; i < 3; i++) runIds.push((await rig.admin.post<ScheduleRun>(`/schedules/${made[0].id}/run`)).body.id);
    await rig.runOf(made[0].id, () => true);
    const runs = await allPages<{ items: ScheduleRun[]; nextCursor?: string }>((cursor) => rig.admin.get(`/schedules/${made[0].id}/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`));
    expect(runs.map((r) => r.id)).to.deep.equal([...runIds].reverse());
    expect((await rig.admin.delete(`/servers/${serverId}`)).status).to.be.oneOf([202, 204]);
    const { repos } = rig.t.controller.services.deps;
    await waitFor(async () => (await repos.schedules.count({ serverId })) + (await repos.scheduleRuns.count({ serverId })) === 0, { what: 'the schedules and runs to go with their server' });
    expectProblem(await rig.admin.get(`/schedules/${made[0].id}`), 404, 'not_found');
  });
});
