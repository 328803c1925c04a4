import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from './controller.js';
import { FakeBackups } from './backups-rig.js';
import { FakeAgent } from './fake-agent.js';
import { GiB, waitForServer } from './fleet.js';
import type { Node, RolePage, Schedule, ScheduleRun, ScheduleRunPage, ServerDetail, Team } from './api-types.js';
import { ApiClient } from './http.js';
import { waitFor } from './wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
/** How far past a minute `toNextMinute` lands by default: more than a pause between two statements, far less than a run's 2 s. */
const landingMs = 250;

/** The permissions of a team member who may keep schedules of command, start and stop tasks. */
export const schedulerPermissions = ['servers.read', 'servers.update', 'servers.command', 'servers.start', 'servers.stop'];

/**
 * The world of the schedule suites: a Controller on a test clock, a fake Node that records the
 * console commands it is sent, a team with a `scheduler` member (the permissions above), a viewer
 * and one READY server.
 */
export class SchedulesRig {
  t!: TestController;
  admin!: ApiClient;
  scheduler!: ApiClient;
  schedulerId!: string;
  viewer!: ApiClient;
  agent!: FakeAgent;
  teamId!: string;
  serverId!: string;
  schedulerRoleId!: string;
  /** The fake Node's answers to backups (NODE_DIRECTORY destinations). */
  backups!: FakeBackups;
  /** Every console command the fake Node was sent, in order, as `<serverId> <line>`. */
  commands: string[] = [];

  /** `extraArgs`: the Controller's own (e.g. --allow-private-webhooks). */
  static register(extraArgs: string[] = []): SchedulesRig {
    const rig = new SchedulesRig();
    before(() => rig.start(extraArgs));
    after(() => rig.dispose());
    return rig;
  }

  createServer = async (name: string) => {
    const res = await this.admin.post<ServerDetail>('/servers', { name, teamId: this.teamId, software: simcraft, resources: small, nodeId: this.agent.nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(this.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    return res.body.id;
  };

  create = async (body: Record<string, unknown>, client = this.admin, serverId = this.serverId) => {
    const res = await client.post<Schedule>(`/servers/${serverId}/schedules`, { name: 'nightly', cron: '0 4 * * *', tasks: [{ action: 'command', command: 'say hello' }], ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };

  runsOf = async (scheduleId: string) => {
    const res = await this.admin.get<ScheduleRunPage>(`/schedules/${scheduleId}/runs?limit=100`);
    expect(res.status, res.text).to.equal(200);
    return res.body.items;
  };

  /** The schedule's newest run once `done` takes it. */
  runOf = (scheduleId: string, done: (run: ScheduleRun) => boolean = (r) => r.result !== 'RUNNING', what = 'a run to end') =>
    waitFor(async () => (await this.runsOf(scheduleId)).find(done), { what: `${what} (schedule ${scheduleId})` });

  /**
   * Moves the test clock to `ms` past the next whole minute, firing the timers due on the way. Never
   * exactly onto the minute: a timer is armed from two readings of the clock (the Controller's wait,
   * then the test clock's own now), and a millisecond that ticks between them sets it for a
   * millisecond past the minute, which an advance to the minute itself would not fire (a CI failure).
   */
  toNextMinute = (ms = landingMs) => {
    const now = this.t.clock.now().getTime();
    const minute = Math.ceil((now + 1) / 60_000) * 60_000;
    this.t.clock.advance(minute - now + ms);
    return new Date(minute);
  };

  /** After a Controller restart: new ports, the same sessions. */
  async restart(): Promise<void> {
    this.t = await this.t.restart();
    [this.admin, this.scheduler, this.viewer] = [this.admin, this.scheduler, this.viewer].map((c) => new ApiClient(this.t.baseUrl, c.auth));
    await this.connected();
    await this.schedulesRunHere();
  }

  /**
   * On a shared store (CAIRN_TEST_MONGODB=1) the schedules are a fleet-wide job, started once this Controller holds
   * its lease, just after it listens; on the embedded store they start with the Controller.
   */
  schedulesRunHere = () => waitFor(() => this.t.controller.services.fleetJobs.held().includes('task-schedules'), { what: 'the schedules job to run here' });

  connected = () => waitFor(async () => (await this.admin.get<Node>(`/nodes/${this.agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });

  private async start(extraArgs: string[]): Promise<void> {
    this.t = await startTestController({ extraArgs });
    ({ admin: this.admin } = await setupAdmin(this.t));
    this.teamId = (await this.admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    this.agent = await FakeAgent.connect(this.admin, this.t.controller.grpcPort, 'node-a');
    this.backups = new FakeBackups(this.agent);
    this.agent.client.handle('consoleCommand', async ({ serverId, command }) => {
      this.commands.push(`${serverId} ${command}`);
      return {};
    });
    await this.connected();
    await this.schedulesRunHere();
    const roles = new Map((await this.admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    this.schedulerRoleId = (await this.admin.post<{ id: string }>('/roles', { name: 'scheduler', description: 'Keeps schedules', permissions: schedulerPermissions })).body.id;
    const member = async (name: string, roleId: string) => {
      const { client, userId } = await createReadyUser(this.t, this.admin, name);
      expect((await this.admin.put(`/teams/${this.teamId}/members/${userId}`, { roleIds: [roleId] })).status).to.equal(200);
      return { client, userId };
    };
    ({ client: this.scheduler, userId: this.schedulerId } = await member('sam', this.schedulerRoleId));
    this.viewer = (await member('vera', roles.get('viewer')!)).client;
    this.serverId = await this.createServer('alpha');
  }

  private async dispose(): Promise<void> {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning them */
    this.agent?.stop();
    await this.t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  }
}
