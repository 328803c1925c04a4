import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateRole, Role, UpdateRole } from '../../schemas/roles.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const RoleParams = IdParams('roleId');
const role = recordRoutes({ tag: 'roles', kind: 'role', path: '/roles', id: 'roleId' });

export const roleRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/roles', tag: 'roles', status: 200,
    summary: 'Roles, built-in ones first (any signed-in user).', query: PageQuery, response: Paged(Role),
    handler: async ({ query }) => s.roles.list(query),
  }),
  route({
    method: 'GET', path: '/roles/{roleId}', tag: 'roles', status: 200,
    summary: 'One role.', params: RoleParams, response: Role,
    handler: async ({ params }) => s.roles.get(params.roleId),
  }),
  role.create(() => s.roles, { summary: 'Create a custom role (global administrators).', body: CreateRole, response: Role, errors: ['conflict'] }),
  role.update(() => s.roles, {
    summary: 'Change a custom role; `permissions`, when given, replaces the whole set.',
    body: UpdateRole, response: Role, errors: ['builtin_role', 'conflict'],
  }),
  role.delete(() => s.roles, { summary: 'Delete a custom role; refused while a membership uses it.', errors: ['builtin_role', 'conflict'] }),
];
