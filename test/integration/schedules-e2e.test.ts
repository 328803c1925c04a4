import { expect } from 'chai';
import type { Schedule, ScheduleRunPage, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from '../support/fleet.js';
import { openConsole } from '../support/game-console.js';
import { waitFor } from '../support/wait-for.js';

const running = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

describe('schedules end to end: a warned restart at a real minute on a real Agent with simcraft', function () {
  // Up to a minute for the boundary, then the warning, the restart and the game's start.
  this.timeout(180_000);
  let f: Fleet;
  let serverId: string;
  let pump: NodeJS.Timeout | undefined;

  before(async () => {
    f = await startFleet();
    // The test clock runs at real time; its timers fire as time passes, as the process's would.
    pump = setInterval(() => f.t.clock.advance(0), 20);
    const created = await f.admin.post<ServerDetail>('/servers', {
      name: 'clockwork', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB },
    });
    expect(created.status, created.text).to.equal(201);
    serverId = created.body.id;
    await waitForServer(f.admin, serverId, (s) => s.phase === 'READY', 'installed and READY', 60_000);
    expect((await f.admin.post(`/servers/${serverId}/start`)).status).to.equal(202);
    await waitForServer(f.admin, serverId, running, 'RUNNING', 60_000);
  });
  after(async () => {
    clearInterval(pump);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await f?.dispose();
  });

  it('warns in the console at the minute, then restarts the game, which starts anew', async () => {
    const before = (await f.admin.get<ServerDetail>(`/servers/${serverId}`)).body.status.startedAt;
    expect(before).to.be.a('string');
    const console = await openConsole(f, serverId);
    try {
      const created = await f.admin.post<Schedule>(`/servers/${serverId}/schedules`, {
        name: 'warned restart', cron: '* * * * *', tasks: [{ action: 'restart', warnSeconds: [2], warnCommand: 'say Restarting in {seconds} seconds' }],
      });
      expect(created.status, created.text).to.equal(201);
      const minute = Date.parse(created.body.nextRunAt!);
      const warning = await console.next((e) => e.event === 'line' && /Restarting in 2 seconds/.test((e.data as { text: string }).text), 75_000);
      expect(warning.event).to.equal('line');
      const warnedAt = Date.now();
      expect(warnedAt - minute, 'the warning at the minute (seen through the console stream)').to.be.within(0, 5000);
      const after = await waitForServer(f.admin, serverId, (s) => running(s) && s.status.startedAt !== undefined && s.status.startedAt !== before, 'RUNNING with a new start time', 60_000);
      expect(Date.parse(after.status.startedAt!) - minute, 'the restart 2 s after the warning').to.be.at.least(2000);
      const run = await waitFor(async () => (await f.admin.get<ScheduleRunPage>(`/schedules/${created.body.id}/runs`)).body.items.find((r) => r.result !== 'RUNNING'), { timeoutMs: 30_000, what: 'the run to end' });
      expect(run).to.deep.include({ scheduledFor: new Date(minute).toISOString(), result: 'SUCCEEDED', tasks: [{ action: 'restart', result: 'SUCCEEDED' }] });
      expect(Date.parse(run.startedAt!) - minute).to.be.within(0, 2000);
      expect((await f.admin.delete(`/schedules/${created.body.id}`)).status).to.equal(204);
    } finally {
      console.close();
    }
  });
});
