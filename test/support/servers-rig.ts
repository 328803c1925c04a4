import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTemplatesDir } from '../../src/controller/adapters/software/template-catalog.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from './controller.js';
import { FakeAgent } from './fake-agent.js';
import { GiB, waitForServer } from './fleet.js';
import type { Node, RolePage, ServerDetail, ServerPage, Team } from './api-types.js';
import type { ApiClient } from './http.js';
import { allPages } from './problems.js';
import { waitFor } from './wait-for.js';

export const simcraft = { template: 'simcraft', version: '1.21.4' };
export const small = { cpuMillis: 100, memoryBytes: GiB / 16 };

/** The shipped templates plus `loner`: simcraft, but not a network member (as vanilla, which needs Java). */
async function templatesDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-templates-'));
  for (const file of ['simcraft.json', 'simproxy.json']) await writeFile(join(dir, file), await readFile(join(defaultTemplatesDir(), file)));
  const { network: _memberSettings, ...loner } = JSON.parse(await readFile(join(defaultTemplatesDir(), 'simcraft.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'loner.json'), JSON.stringify({ ...loner, id: 'loner', name: 'Loner', networkMember: false }));
  return dir;
}

/**
 * The world of the servers API suites: a Controller with the templates above, teams `a`, `b` and
 * `paging`, a viewer and an operator of team a, and two fake Nodes, `big` and `little` (1 CPU, 1 GiB).
 * `register` sets it up before a suite and takes it down after.
 */
export class ServersRig {
  t!: TestController;
  templates!: string;
  admin!: ApiClient;
  viewer!: ApiClient;
  operator!: ApiClient;
  big!: FakeAgent;
  little!: FakeAgent;
  /** Nodes a test adds; they stay connected to the end, so their servers do not turn UNKNOWN. */
  readonly extraAgents: FakeAgent[] = [];
  readonly teams = { a: '', b: '', paging: '' };

  static register(): ServersRig {
    const rig = new ServersRig();
    before(() => rig.start());
    after(() => rig.dispose());
    return rig;
  }

  create = async (teamId: string, name: string, extra: Record<string, unknown> = {}) => {
    const res = await this.admin.post<ServerDetail>('/servers', { name, teamId, software: simcraft, resources: small, nodeId: this.big.nodeId, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  ready = (id: string) => waitForServer(this.admin, id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY and CONVERGED', 5_000);
  listAll = (client: ApiClient, query = '', limit = 50) =>
    allPages((cursor) => client.get<ServerPage>(`/servers?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`));

  private agents(): FakeAgent[] {
    return [this.big, this.little, ...this.extraAgents];
  }

  private async start(): Promise<void> {
    this.templates = await templatesDir();
    this.t = await startTestController({ extraArgs: ['--templates-dir', this.templates] });
    ({ admin: this.admin } = await setupAdmin(this.t));
    for (const key of Object.keys(this.teams) as (keyof ServersRig['teams'])[]) this.teams[key] = (await this.admin.post<Team>('/teams', { name: `team-${key}` })).body.id;
    this.big = await FakeAgent.connect(this.admin, this.t.controller.grpcPort, 'big');
    this.little = await FakeAgent.connect(this.admin, this.t.controller.grpcPort, 'little', { cpuMillis: 1000, memoryBytes: GiB });
    const roles = new Map((await this.admin.get<RolePage>('/roles?limit=200')).body.items.map((r) => [r.name, r.id]));
    const member = async (name: string, role: string) => {
      const { client, userId } = await createReadyUser(this.t, this.admin, name);
      const res = await this.admin.put(`/teams/${this.teams.a}/members/${userId}`, { roleIds: [roles.get(role)] });
      expect(res.status, res.text).to.equal(200);
      return client;
    };
    this.viewer = await member('vera', 'viewer');
    this.operator = await member('otto', 'operator');
    for (const agent of this.agents()) {
      await waitFor(async () => (await this.admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'fake Node HEALTHY' });
    }
  }

  private async dispose(): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    for (const agent of this.agents()) agent?.stop();
    await this.t.dispose();
    await rm(this.templates, { recursive: true, force: true });
  }
}
