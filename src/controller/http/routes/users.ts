import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateUser, PasswordResetIssued, UpdateUser, User } from '../../schemas/users.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

const UserParams = IdParams('userId');

export const userRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/users', tag: 'users', status: 201,
    summary: 'Create a user (global administrators). The user must change the password at first sign-in.',
    body: CreateUser, response: User, errors: ['conflict'],
    audit: { action: 'user.create', targetKind: 'user' },
    handler: async ({ caller, body, audit }) => s.users.create(caller, body, audit),
  }),
  route({
    method: 'GET', path: '/users', tag: 'users', status: 200,
    summary: 'List users in creation order (global administrators).', query: PageQuery, response: Paged(User),
    handler: async ({ caller, query }) => s.users.list(caller, query),
  }),
  route({
    method: 'GET', path: '/users/{userId}', tag: 'users', status: 200,
    summary: 'One user (global administrators, or the user itself).', params: UserParams, response: User,
    handler: async ({ caller, params }) => s.users.get(caller, params.userId),
  }),
  route({
    method: 'PATCH', path: '/users/{userId}', tag: 'users', status: 200,
    summary: 'Change a user. Users may change their own email and display name; administration rights need a global administrator.',
    params: UserParams, body: UpdateUser, response: User, errors: ['conflict'],
    audit: { action: 'user.update', targetKind: 'user' },
    handler: async ({ caller, params, body, audit }) => s.users.update(caller, params.userId, body, audit),
  }),
  route({
    method: 'DELETE', path: '/users/{userId}', tag: 'users', status: 204,
    summary: 'Delete a user with its sessions, tokens and memberships (not the last global administrator).',
    params: UserParams, errors: ['conflict'],
    audit: { action: 'user.delete', targetKind: 'user' },
    handler: async ({ caller, params, audit }) => s.users.delete(caller, params.userId, audit),
  }),
  route({
    method: 'POST', path: '/users/{userId}/password-reset', tag: 'users', status: 200,
    summary: 'Issue a one-time password-reset secret for a user (global administrators); valid 24 hours.',
    params: UserParams, response: PasswordResetIssued,
    audit: { action: 'user.password_reset_issue', targetKind: 'user' },
    handler: async ({ caller, params, audit }) => s.auth.issueReset(caller, params.userId, audit),
  }),
];
