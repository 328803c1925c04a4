/**
 * The spec's permission values, exactly; roles are sets of these. Here, below both, because the
 * role and user schemas list them and the domain's rules (domain/permissions.ts) use them.
 */
export const permissionValues = [
  'servers.read', 'servers.create', 'servers.start', 'servers.stop', 'servers.delete', 'servers.console',
  'servers.command', 'servers.update', 'files.read', 'files.write', 'files.delete', 'plugins.read',
  'plugins.install', 'plugins.update', 'plugins.delete', 'nodes.read', 'nodes.manage', 'backups.read',
  'backups.create', 'backups.restore',
] as const;

export type Permission = (typeof permissionValues)[number];

/** Permissions a user may hold outside any team. */
export const globalPermissionValues = ['nodes.manage'] as const;
export type GlobalPermission = (typeof globalPermissionValues)[number];
