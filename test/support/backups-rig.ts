import { expect } from 'chai';
import { AgentError } from '../../src/agent/errors.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from './controller.js';
import { FakeAgent } from './fake-agent.js';
import { GiB, waitForServer } from './fleet.js';
import type { Backup, BackupDestination, BackupPage, Node, RolePage, ServerDetail, Team } from './api-types.js';
import { ApiClient } from './http.js';
import { waitFor } from './wait-for.js';

export const simcraft = { template: 'simcraft', version: '1.21.4' };
const small = { cpuMillis: 100, memoryBytes: GiB / 16 };
export const hourMs = 3600_000;

/** What the fake Node was asked to do with backups, and how it answers. */
export class FakeBackups {
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
  /** A commit that completes on the Node but whose answer never goes out (a Controller restart at the commit). */
  hangCommit = false;
  /** The next commit completes on the Node, then its answer fails (e.g. the link dropped as it was sent). */
  loseCommitAnswer = false;
  /** Stage ids the Node committed, as StageCommitted answers; set `committedStages` to answer otherwise. */
  committedStages = new Set<string>();
  /** The stage ids of commit requests, in order. */
  commitRequests: string[] = [];

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
      this.commitRequests.push(p.stageId);
      this.committed.push({ serverId: p.serverId, software: `${p.software?.template} ${p.software?.version}` });
      this.committedStages.add(p.stageId);
      if (this.hangCommit) await new Promise(() => undefined);
      const lost = this.loseCommitAnswer;
      this.loseCommitAnswer = false;
      if (lost) throw new AgentError('INTERNAL', 'the answer was lost');
      return {};
    });
    agent.client.handle('stageCommitted', async (p) => ({ payload: 'stageCommitState', stageCommitState: { committed: this.committedStages.has(p.stageId) } }));
    agent.client.handle('stageAbort', async (p) => {
      this.aborted.push(p.stageId);
      return {};
    });
  }
}

/**
 * The world of the backups API suites: a Controller, two fake Nodes (backups answered on node-a),
 * a team with a viewer, an operator, a restorer and an outsider, a NODE_DIRECTORY destination and
 * one READY server. `register` sets it up before a suite and takes it down after.
 */
export class BackupsRig {
  t!: TestController;
  admin!: ApiClient;
  viewer!: ApiClient;
  operator!: ApiClient;
  restorer!: ApiClient;
  outsider!: ApiClient;
  agent!: FakeAgent;
  other!: FakeAgent;
  fake!: FakeBackups;
  teamId!: string;
  nodeDir!: BackupDestination;
  serverId!: string;

  static register(): BackupsRig {
    const rig = new BackupsRig();
    before(() => rig.start());
    after(() => rig.dispose());
    return rig;
  }

  createServer = async (name: string, nodeId = this.agent.nodeId) => {
    const res = await this.admin.post<ServerDetail>('/servers', { name, teamId: this.teamId, software: simcraft, resources: small, nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(this.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    return res.body.id;
  };
  take = async (id: string, body: Record<string, unknown> = { destinationId: this.nodeDir.id }, client = this.admin) => {
    const res = await client.post<Backup>(`/servers/${id}/backups`, body);
    expect(res.status, res.text).to.equal(202);
    return res.body;
  };
  finished = (backupId: string) => waitFor(async () => {
    const res = await this.admin.get<Backup>(`/backups/${backupId}`);
    return res.body.state === 'SUCCEEDED' || res.body.state === 'FAILED' ? res.body : undefined;
  }, { what: `backup ${backupId} to finish` });
  backupsOf = async (id: string) => (await this.admin.get<BackupPage>(`/servers/${id}/backups?limit=200`)).body.items;
  /** The restarted Controller listens on new ports; the sessions carry over. */
  reattach = () => {
    [this.admin, this.viewer, this.operator, this.restorer, this.outsider] = [this.admin, this.viewer, this.operator, this.restorer, this.outsider].map((c) => new ApiClient(this.t.baseUrl, c.auth));
  };
  connected = (a: FakeAgent) => waitFor(async () => (await this.admin.get<Node>(`/nodes/${a.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });

  private async start(): Promise<void> {
    this.t = await startTestController();
    ({ admin: this.admin } = await setupAdmin(this.t));
    this.teamId = (await this.admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    this.agent = await FakeAgent.connect(this.admin, this.t.controller.grpcPort, 'node-a');
    this.other = await FakeAgent.connect(this.admin, this.t.controller.grpcPort, 'node-b');
    this.fake = new FakeBackups(this.agent);
    await this.connected(this.agent);
    await this.connected(this.other);
    const roles = new Map((await this.admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const restoreRole = await this.admin.post<{ id: string }>('/roles', { name: 'restorer', description: 'Reads and restores backups', permissions: ['servers.read', 'backups.read', 'backups.restore'] });
    const member = async (name: string, roleId: string | undefined) => {
      const { client, userId } = await createReadyUser(this.t, this.admin, name);
      if (roleId) expect((await this.admin.put(`/teams/${this.teamId}/members/${userId}`, { roleIds: [roleId] })).status).to.equal(200);
      return client;
    };
    this.viewer = await member('vera', roles.get('viewer'));
    this.operator = await member('otto', roles.get('operator'));
    this.restorer = await member('rita', restoreRole.body.id);
    this.outsider = await member('olga', undefined);
    this.nodeDir = (await this.admin.post<BackupDestination>('/backup-destinations', { name: 'local-disk', kind: 'NODE_DIRECTORY', path: '/var/backups/cairn' })).body;
    this.serverId = await this.createServer('alpha');
  }

  private async dispose(): Promise<void> {
    /* eslint-disable @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning them */
    this.agent?.stop();
    this.other?.stop();
    await this.t?.dispose();
    /* eslint-enable @typescript-eslint/no-unnecessary-condition */
  }
}
