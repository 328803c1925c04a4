/**
 * What the administration pages need beyond `client.ts`: the Agent link's address, whole lists
 * for pickers, and their query keys. Their types live in types.ts with the others.
 */
import { api } from './client';
import { get } from './http';
import { allPages } from './reference-data';
import type { AgentLink, Role, User } from './types';

export type { AgentLink, GlobalPermission, Permission } from './types';

export const adminApi = {
  agentLink: () => get<AgentLink>('/agent-link'),
  allUsers: (): Promise<User[]> => allPages(api.users.list),
  allRoles: (): Promise<Role[]> => allPages(api.roles.list),
};

/**
 * Keys under the same roots as `query-keys.ts`, so invalidating `queryKeys.users.all` (or
 * `roles.all`, `nodes.all`, `teams.all`) refreshes these too.
 */
export const adminKeys = {
  agentLink: ['agent-link'] as const,
  tokens: ['me', 'tokens'] as const,
  allUsers: ['users', 'everything'] as const,
  allRoles: ['roles', 'everything'] as const,
  node: (id: string) => ['nodes', 'detail', id] as const,
  team: (id: string) => ['teams', 'detail', id] as const,
  members: (teamId: string) => ['teams', teamId, 'members'] as const,
};

/** Whether the signed-in user may change Nodes: a convenience for hiding controls; the API decides. */
export const mayManageNodes = (me: User | null | undefined) => !!me && (me.globalAdmin || me.globalPermissions.includes('nodes.manage'));
