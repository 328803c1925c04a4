import type { Backup, Membership, NodeInfo, Role, Schedule, ServerItem, SoftwareSyncResult, Team, Template, TemplateVersion, User, Webhook } from './api-types.js';
import type { View } from './output.js';
import { formatCpu, formatMemory, humanBytes } from './quantity.js';
import { runtimeWord } from './sleep.js';

/** Names for the ids a row refers to; an id nobody could name shows as itself. */
export interface Names {
  team(id: string): string;
  node(id: string | undefined): string | undefined;
  server(id: string): string;
  user(id: string): string;
  role(id: string): string;
}

/** A server as `get servers` shows it; `--watch` shows a deleted one once more, as phase DELETED. */
export type ServerRow = Omit<ServerItem, 'phase'> & { phase: ServerItem['phase'] | 'DELETED' };

export const serverView = (names: Names): View<ServerRow> => ({
  kind: 'server',
  plural: 'servers',
  name: (s) => s.name,
  columns: [
    { header: 'NAME', value: (s) => s.name },
    { header: 'TEAM', value: (s) => names.team(s.teamId) },
    { header: 'NODE', value: (s) => names.node(s.nodeId) },
    { header: 'DESIRED', value: (s) => s.desiredState },
    { header: 'PHASE', value: (s) => s.phase },
    { header: 'RUNTIME', value: runtimeWord },
    { header: 'CONVERGENCE', value: (s) => s.convergence },
    { header: 'SOFTWARE', value: (s) => `${s.software.template} ${s.software.version}`, wide: true },
    { header: 'CPU', value: (s) => formatCpu(s.resources.cpuMillis), wide: true },
    { header: 'MEMORY', value: (s) => formatMemory(s.resources.memoryBytes), wide: true },
    { header: 'PORT', value: (s) => s.gamePort, wide: true },
    { header: 'CONDITIONS', value: (s) => s.conditionCount, wide: true },
    { header: 'ID', value: (s) => s.id, wide: true },
  ],
});

export const nodeView: View<NodeInfo> = {
  kind: 'node',
  plural: 'nodes',
  name: (n) => n.name,
  columns: [
    { header: 'NAME', value: (n) => n.name },
    { header: 'ADMIN', value: (n) => n.adminState },
    { header: 'CONNECTION', value: (n) => n.status.connectionState },
    { header: 'PLACEMENTS', value: (n) => (n.acceptsPlacements ? 'yes' : 'no') },
    { header: 'FREE-CPU', value: (n) => formatCpu(n.free.cpuMillis) },
    { header: 'FREE-MEMORY', value: (n) => humanBytes(n.free.memoryBytes) },
    { header: 'ADDRESS', value: (n) => n.reachAddress, wide: true },
    { header: 'HOSTNAME', value: (n) => n.status.hostname, wide: true },
    { header: 'VERSION', value: (n) => n.status.agentVersion, wide: true },
    { header: 'ID', value: (n) => n.id, wide: true },
  ],
};

export const teamView: View<Team> = {
  kind: 'team',
  plural: 'teams',
  name: (t) => t.name,
  columns: [
    { header: 'NAME', value: (t) => t.name },
    { header: 'ID', value: (t) => t.id },
  ],
};

export const userView: View<User> = {
  kind: 'user',
  plural: 'users',
  name: (u) => u.username,
  columns: [
    { header: 'NAME', value: (u) => u.username },
    { header: 'DISPLAY-NAME', value: (u) => u.displayName },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'ADMIN', value: (u) => (u.globalAdmin ? 'yes' : 'no') },
    { header: 'PERMISSIONS', value: (u) => u.globalPermissions.join(','), wide: true },
    { header: 'ID', value: (u) => u.id, wide: true },
  ],
};

export const roleView: View<Role> = {
  kind: 'role',
  plural: 'roles',
  name: (r) => r.name,
  columns: [
    { header: 'NAME', value: (r) => r.name },
    { header: 'BUILTIN', value: (r) => (r.builtin ? 'yes' : 'no') },
    { header: 'PERMISSIONS', value: (r) => r.permissions.length },
    { header: 'DESCRIPTION', value: (r) => r.description, wide: true },
    { header: 'ID', value: (r) => r.id, wide: true },
  ],
};

export const templateView: View<Template> = {
  kind: 'template',
  plural: 'templates',
  name: (t) => t.id,
  columns: [
    { header: 'NAME', value: (t) => t.id },
    { header: 'KIND', value: (t) => t.kind },
    { header: 'PLATFORM', value: (t) => t.platform },
    { header: 'NETWORK-MEMBER', value: (t) => (t.networkMember ? 'yes' : 'no') },
    { header: 'LATEST', value: (t) => t.versions[0] },
    { header: 'VERSIONS', value: (t) => t.versions.join(','), wide: true },
  ],
};

/** `cairn get versions TEMPLATE`: newest first, as the API lists them. */
export const versionView: View<TemplateVersion> = {
  kind: 'version',
  plural: 'versions',
  name: (v) => v.version,
  columns: [
    { header: 'VERSION', value: (v) => v.version },
    { header: 'JAVA', value: (v) => v.java?.minimum },
    { header: 'LATEST BUILD', value: (v) => v.latestBuild },
    { header: 'TYPE', value: (v) => v.type, wide: true },
    { header: 'BUILDS', value: (v) => v.builds?.map((b) => b.id).join(','), wide: true },
  ],
};

/** `cairn sync software`: one row per upstream. */
export const syncSourceView: View<SoftwareSyncResult['sources'][number]> = {
  kind: 'source',
  plural: 'sources',
  name: (s) => s.source,
  columns: [
    { header: 'SOURCE', value: (s) => s.source },
    { header: 'OK', value: (s) => (s.ok ? 'yes' : 'no') },
    { header: 'VERSIONS', value: (s) => s.versionCount },
    { header: 'SYNCED', value: (s) => s.syncedAt },
    { header: 'ERROR', value: (s) => s.error },
  ],
};

export const backupView = (names: Names): View<Backup> => ({
  kind: 'backup',
  plural: 'backups',
  name: (b) => b.id,
  columns: [
    { header: 'ID', value: (b) => b.id },
    { header: 'SERVER', value: (b) => names.server(b.serverId) },
    { header: 'TRIGGER', value: (b) => b.trigger },
    { header: 'STATE', value: (b) => b.state },
    { header: 'SIZE', value: (b) => humanBytes(b.sizeBytes) },
    { header: 'STARTED', value: (b) => b.startedAt },
    { header: 'NODE', value: (b) => names.node(b.nodeId), wide: true },
    { header: 'FILES', value: (b) => b.fileCount, wide: true },
    { header: 'STORED', value: (b) => humanBytes(b.storedBytes), wide: true },
    { header: 'FINISHED', value: (b) => b.finishedAt, wide: true },
    { header: 'ERROR', value: (b) => b.error, wide: true },
  ],
});

export const memberView = (names: Names): View<Membership> => ({
  kind: 'member',
  plural: 'members',
  name: (m) => names.user(m.userId),
  columns: [
    { header: 'USER', value: (m) => names.user(m.userId) },
    { header: 'TEAM', value: (m) => names.team(m.teamId) },
    { header: 'ROLES', value: (m) => m.roleIds.map((id) => names.role(id)).join(',') },
    { header: 'USER-ID', value: (m) => m.userId, wide: true },
  ],
});

/** A webhook with no team hears the whole fleet. */
export const webhookView = (names: Names): View<Webhook> => ({
  kind: 'webhook',
  plural: 'webhooks',
  name: (w) => w.name,
  columns: [
    { header: 'NAME', value: (w) => w.name },
    { header: 'TEAM', value: (w) => (w.teamId === undefined ? '<fleet>' : names.team(w.teamId)) },
    { header: 'FORMAT', value: (w) => w.format },
    { header: 'EVENTS', value: (w) => w.events.join(',') },
    { header: 'URL', value: (w) => w.url, wide: true },
    { header: 'SIGNED', value: (w) => (w.hasSecret ? 'yes' : 'no'), wide: true },
    { header: 'ID', value: (w) => w.id, wide: true },
  ],
});

/** `cairn get schedules`: NEXT-RUN empty while a schedule is disabled, LAST-RESULT empty before its first run. */
export const scheduleView = (names: Names): View<Schedule> => ({
  kind: 'schedule',
  plural: 'schedules',
  name: (s) => s.name,
  columns: [
    { header: 'NAME', value: (s) => s.name },
    { header: 'SERVER', value: (s) => names.server(s.serverId) },
    { header: 'CRON', value: (s) => s.cron },
    { header: 'TIMEZONE', value: (s) => s.timezone },
    { header: 'ENABLED', value: (s) => (s.enabled ? 'yes' : 'no') },
    { header: 'NEXT-RUN', value: (s) => s.nextRunAt },
    { header: 'LAST-RESULT', value: (s) => s.lastRun?.result },
    { header: 'TASKS', value: (s) => s.tasks.map((t) => t.action).join(','), wide: true },
    { header: 'ONLY-WHEN-RUNNING', value: (s) => (s.onlyWhenRunning ? 'yes' : 'no'), wide: true },
    { header: 'LAST-RUN', value: (s) => s.lastRun?.startedAt, wide: true },
    { header: 'ID', value: (s) => s.id, wide: true },
  ],
});
