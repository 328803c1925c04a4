import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateRole, Role, UpdateRole } from '../../schemas/roles.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

const RoleParams = IdParams('roleId');

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
  route({
    method: 'POST', path: '/roles', tag: 'roles', status: 201,
    summary: 'Create a custom role (global administrators).', body: CreateRole, response: Role, errors: ['conflict'],
    audit: { action: 'role.create', targetKind: 'role' },
    handler: async ({ caller, body, audit }) => s.roles.create(caller, body, audit),
  }),
  route({
    method: 'PATCH', path: '/roles/{roleId}', tag: 'roles', status: 200,
    summary: 'Change a custom role; `permissions`, when given, replaces the whole set.',
    params: RoleParams, body: UpdateRole, response: Role, errors: ['builtin_role', 'conflict'],
    audit: { action: 'role.update', targetKind: 'role' },
    handler: async ({ caller, params, body, audit }) => s.roles.update(caller, params.roleId, body, audit),
  }),
  route({
    method: 'DELETE', path: '/roles/{roleId}', tag: 'roles', status: 204,
    summary: 'Delete a custom role; refused while a membership uses it.', params: RoleParams, errors: ['builtin_role', 'conflict'],
    audit: { action: 'role.delete', targetKind: 'role' },
    handler: async ({ caller, params, audit }) => s.roles.delete(caller, params.roleId, audit),
  }),
];
