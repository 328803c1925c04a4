import { IdParams } from '../../schemas/common.js';
import { CreateUser, PasswordResetIssued, UpdateUser, User } from '../../schemas/users.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const UserParams = IdParams('userId');
const user = recordRoutes({ tag: 'users', kind: 'user', path: '/users', id: 'userId' });

export const userRoutes = (s: Services) => [
  user.create(() => s.users, {
    summary: 'Create a user (global administrators). The user must change the password at first sign-in.',
    body: CreateUser, response: User, errors: ['conflict'],
  }),
  user.list(() => s.users, { summary: 'List users in creation order (global administrators).', item: User }),
  user.get(() => s.users, { summary: 'One user (global administrators, or the user itself).', response: User }),
  user.update(() => s.users, {
    summary: 'Change a user. Users may change their own email and display name; administration rights need a global administrator.',
    body: UpdateUser, response: User, errors: ['conflict'],
  }),
  user.delete(() => s.users, { summary: 'Delete a user with its sessions, tokens and memberships (not the last global administrator).', errors: ['conflict'] }),
  route({
    method: 'POST', path: '/users/{userId}/password-reset', tag: 'users', status: 200,
    summary: 'Issue a one-time password-reset secret for a user (global administrators); valid 24 hours.',
    params: UserParams, response: PasswordResetIssued,
    audit: { action: 'user.password_reset_issue', targetKind: 'user' },
    handler: async ({ caller, params, audit }) => s.auth.issueReset(caller, params.userId, audit),
  }),
  route({
    method: 'POST', path: '/users/{userId}/unlock', tag: 'users', status: 204,
    summary: 'Lift a user\'s lockout after too many failed attempts (global administrators).',
    description: 'Forgets the account\'s failed sign-ins (from every address), wrong current passwords and wrong TOTP codes, so the user may try again at once. The limit per client address stays.',
    params: UserParams,
    audit: { action: 'user.unlock', targetKind: 'user' },
    handler: async ({ caller, params, audit }) => s.unlock.unlock(caller, params.userId, audit),
  }),
];
