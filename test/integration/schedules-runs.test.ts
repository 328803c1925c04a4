import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';
import type { AuditEventPage, BackupDestination, BackupPage, ScheduleRun, Webhook, WebhookEventBody } from '../support/api-types.js';
import { expectProblem } from '../support/problems.js';
import { SchedulesRig } from '../support/schedules-rig.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('schedule runs: backup tasks with retain, and schedule.run_failed to webhooks', function () {
  this.timeout(60_000);
  const rig = SchedulesRig.register(['--allow-private-webhooks']);
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await WebhookReceiver.start();
  });
  after(async () => receiver.close());

  const destination = async (name: string) => {
    const res = await rig.admin.post<BackupDestination>('/backup-destinations', { name, kind: 'NODE_DIRECTORY', path: `/var/backups/${name}` });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const runNow = async (scheduleId: string) => {
    const res = await rig.admin.post<ScheduleRun>(`/schedules/${scheduleId}/run`);
    expect(res.status, res.text).to.equal(202);
    return rig.runOf(scheduleId, (r) => r.id === res.body.id && r.result !== 'RUNNING', 'the run to end');
  };

  it('takes a SCHEDULED backup marked with the schedule, audited as the editor, and keeps only `retain` of this schedule\'s', async () => {
    const disk = await destination('nightly');
    const schedule = await rig.create({ name: 'backups', tasks: [{ action: 'backup', destinationId: disk.id, retain: 1 }] });
    const first = await runNow(schedule.id);
    expect(first).to.deep.include({ result: 'SUCCEEDED' });
    expect(first.tasks[0]).to.include({ action: 'backup', result: 'SUCCEEDED' });
    const second = await runNow(schedule.id);
    expect(second.result, JSON.stringify(second)).to.equal('SUCCEEDED');
    const ofSchedule = (await rig.admin.get<BackupPage>(`/servers/${rig.serverId}/backups?limit=200`)).body.items.filter((b) => b.scheduleId === schedule.id);
    expect(ofSchedule.map((b) => `${b.trigger} ${b.state}`)).to.deep.equal(['SCHEDULED SUCCEEDED']);
    expect(second.tasks[0].detail).to.equal(`backup ${ofSchedule[0].id}`);
    expect(rig.backups.pruned.flat()).to.have.length(1);
    const created = (await rig.admin.get<AuditEventPage>('/audit-events?action=backup.create')).body.items.filter((e) => e.details.scheduleId === schedule.id);
    expect(created.map((e) => `${e.actorKind} ${e.outcome}`)).to.deep.equal(['USER SUCCESS', 'USER SUCCESS']);
    const removed = (await rig.admin.get<AuditEventPage>('/audit-events?action=backup.delete')).body.items.filter((e) => e.details.scheduleId === schedule.id);
    expect(removed.map((e) => e.details.reason)).to.deep.equal(['retention']);
    expect((await rig.admin.delete(`/schedules/${schedule.id}`)).status).to.equal(204);
  });

  it('keeps a destination a schedule backs up to; tells a team\'s webhook schedule.run_failed with the failed task and what it said', async () => {
    const hook = await rig.admin.post<Webhook>('/webhooks', { name: 'ops', url: receiver.url, events: ['schedule.run_failed'], teamId: rig.teamId });
    expect(hook.status, hook.text).to.equal(201);
    const kept = await destination('kept');
    const schedule = await rig.create({ name: 'doomed', tasks: [{ action: 'command', command: 'fail' }, { action: 'backup', destinationId: kept.id }] });
    expectProblem(await rig.admin.delete(`/backup-destinations/${kept.id}`), 409, 'conflict', '1 schedule(s)');
    rig.agent.client.handle('consoleCommand', async ({ command }) => {
      if (command === 'fail') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      return {};
    });
    const run = await runNow(schedule.id);
    expect(run.result).to.equal('FAILED');
    expect(run.tasks.map((t) => t.result)).to.deep.equal(['FAILED', 'NOT_RUN']);
    expect(run.tasks[0].detail).to.match(/not running/i);
    const [got] = await waitFor(() => (receiver.received.length > 0 ? receiver.received : undefined), { what: 'the webhook delivery' });
    expect(got.headers['cairn-event']).to.equal('schedule.run_failed');
    const body = JSON.parse(got.body) as WebhookEventBody;
    expect(body.server).to.deep.include({ id: rig.serverId, teamId: rig.teamId });
    expect(body.details).to.deep.include({ scheduleId: schedule.id, scheduleName: 'doomed', runId: run.id, action: 'command' });
    expect(String(body.details.message)).to.match(/^the command task failed: .*not running/i);
    expect((await rig.admin.delete(`/schedules/${schedule.id}`)).status).to.equal(204);
    expect((await rig.admin.delete(`/backup-destinations/${kept.id}`)).status).to.equal(204);
    const metrics = await rig.t.api.get('/metrics');
    expect(metrics.text).to.match(/cairn_schedule_runs_total\{result="FAILED"\} [1-9]/).and.match(/cairn_schedule_runs_total\{result="SUCCEEDED"\} [1-9]/);
  });
});
