import type {
  Backup, BackupDestination, BackupDestinationPage, BackupSchedule, CreatedApiToken, Node, PluginInstallation, Role, RolePage, ServerDetail, Team, User,
} from './api-types.js';
import { setupAdmin, startTestController, type TestController } from './controller.js';
import { FakeAgent } from './fake-agent.js';
import { FakeFiles } from './fake-files.js';
import { FakeOperations } from './fake-operations.js';
import { waitForServer } from './fleet.js';
import type { ApiClient, ApiResponse } from './http.js';
import { waitFor } from './wait-for.js';

export const simcraft = { template: 'simcraft', version: '1.21.4' };
export const smallResources = { cpuMillis: 100, memoryBytes: 64 * 1024 * 1024 };

/**
 * One record of every kind the API names by id, built once for tests that sweep the whole API
 * (the fuzzer, the authorization matrix): a HEALTHY fake Node with the Agent's file operations,
 * a team with a RUNNING server that has a plugin, a backup and a schedule, a custom role, a user,
 * an API token of the administrator.
 */
export interface World {
  t: TestController;
  admin: ApiClient;
  adminId: string;
  adminToken: string;
  agent: FakeAgent;
  nodeId: string;
  teamId: string;
  serverId: string;
  userId: string;
  roleId: string;
  builtinRoles: Map<string, string>;
  /** A token of the administrator that the tests may revoke. */
  spareTokenId: string;
  destinationId: string;
  controllerDestinationId: string;
  backupId: string;
  scheduleId: string;
  installationId: string;
  pluginId: string;
  /** A team webhook to a documentation address (TEST-NET-3): public, so no `--allow-private-webhooks`; it never answers. */
  webhookId: string;
  dispose(): Promise<void>;
}

function created<T>(res: ApiResponse<T>, what: string, status = 201): T {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

export const worldWebhookUrl = 'https://203.0.113.10/cairn';

export async function buildWorld(options: { serverName?: string } = {}): Promise<World> {
  const t = await startTestController();
  const { admin, adminId } = await setupAdmin(t);
  const adminToken = created(await admin.post<CreatedApiToken>('/me/tokens', { name: 'world' }), 'token').token;
  const spareTokenId = created(await admin.post<CreatedApiToken>('/me/tokens', { name: 'spare' }), 'spare token').id;
  const agent = await FakeAgent.connect(admin, t.controller.grpcPort, 'world-node');
  const ops = await FakeOperations.attach(agent);
  new FakeFiles(agent);
  await waitFor(async () => (await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState === 'HEALTHY', { what: 'the fake Node HEALTHY' });
  const teamId = created(await admin.post<Team>('/teams', { name: 'World' }), 'team').id;
  const server = created(await admin.post<ServerDetail>('/servers', { name: options.serverName ?? 'world', teamId, software: simcraft, resources: smallResources, nodeId: agent.nodeId }), 'server');
  await waitForServer(admin, server.id, (s) => s.phase === 'READY', 'the server READY');
  created(await admin.post(`/servers/${server.id}/start`), 'start', 202);
  await waitForServer(admin, server.id, (s) => s.status.runtimeState === 'RUNNING', 'the server RUNNING');
  const userId = created(await admin.post<User>('/users', { username: 'world-user', email: 'world-user@example.com', displayName: 'World user', password: 'first-password-1' }), 'user').id;
  const roleId = created(await admin.post<Role>('/roles', { name: 'world-role', permissions: ['servers.read'] }), 'role').id;
  const builtinRoles = new Map((await admin.get<RolePage>('/roles?limit=200')).body.items.filter((r) => r.builtin).map((r) => [r.name, r.id]));
  const destinationId = created(await admin.post<BackupDestination>('/backup-destinations', { name: 'world-disk', kind: 'NODE_DIRECTORY', path: '/var/backups/world' }), 'destination').id;
  const controllerDestinationId = (await admin.get<BackupDestinationPage>('/backup-destinations')).body.items.find((d) => d.kind === 'CONTROLLER')!.id;
  const backupId = created(await admin.post<Backup>(`/servers/${server.id}/backups`, { destinationId: controllerDestinationId }), 'backup', 202).id;
  await waitFor(async () => (await admin.get<Backup>(`/backups/${backupId}`)).body.state === 'SUCCEEDED', { what: 'the backup SUCCEEDED' });
  const scheduleId = created(await admin.post<BackupSchedule>(`/servers/${server.id}/backup-schedules`, { cron: '0 3 * * *', destinationId: controllerDestinationId, retain: 3 }), 'schedule').id;
  const installation = created(await admin.post<PluginInstallation>(`/servers/${server.id}/plugins`, { pluginId: 'sample:essentialsx-chat' }), 'plugin');
  const webhookId = created(await admin.post<{ id: string }>('/webhooks', { name: 'world', url: worldWebhookUrl, events: ['server.crashed'], teamId }), 'webhook').id;
  return {
    t, admin, adminId, adminToken, agent, nodeId: agent.nodeId, teamId, serverId: server.id, userId, roleId, builtinRoles, spareTokenId,
    destinationId, controllerDestinationId, backupId, scheduleId, installationId: installation.id, pluginId: installation.pluginId, webhookId,
    async dispose() {
      agent.stop();
      await t.dispose();
      await ops.dispose();
    },
  };
}
