import type { GlobalPermission, Permission } from '../api/types';

/**
 * What each of the spec's permission values lets a team member do. A Record over the API's
 * Permission type, so the compiler refuses a list that misses or invents one.
 */
const permissionHints: Record<Permission, string> = {
  'servers.read': 'See the team\'s servers and their state.',
  'servers.create': 'Create servers in the team.',
  'servers.start': 'Start servers and acknowledge their conditions.',
  'servers.stop': 'Stop servers.',
  'servers.delete': 'Delete servers.',
  'servers.console': 'Follow the live console.',
  'servers.command': 'Send console commands.',
  'servers.update': 'Change resources, network membership and server.properties.',
  'files.read': 'List and download files.',
  'files.write': 'Upload and change files.',
  'files.delete': 'Delete files and directories.',
  'plugins.read': 'See installed plugins.',
  'plugins.install': 'Install plugins from the catalog or a jar.',
  'plugins.update': 'Update installed plugins.',
  'plugins.delete': 'Remove plugins.',
  'nodes.read': 'See the Nodes the team\'s servers run on.',
  'nodes.manage': 'Manage Nodes (as a global permission it covers every Node).',
  'backups.read': 'See backups.',
  'backups.create': 'Take and delete backups, manage schedules.',
  'backups.restore': 'Restore backups.',
};

export const permissionChoices = (Object.keys(permissionHints) as Permission[]).map((value) => ({
  value,
  label: <code>{value}</code>,
  hint: permissionHints[value],
}));

const globalPermissionHints: Record<GlobalPermission, string> = {
  'nodes.manage': 'Create, change, disable, revoke and delete every Node, outside any team.',
};

export const globalPermissionChoices = (Object.keys(globalPermissionHints) as GlobalPermission[]).map((value) => ({
  value,
  label: <>Global <code>{value}</code></>,
  hint: globalPermissionHints[value],
}));
