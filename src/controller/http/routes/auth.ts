import { ChangePassword, Login, RedeemPasswordReset } from '../../schemas/auth.js';
import { Setup, SetupStatus } from '../../schemas/setup.js';
import { User } from '../../schemas/users.js';
import type { Services } from '../../services/index.js';
import { userView } from '../../services/identity/views.js';
import { clearedSessionCookie, sessionCookie } from '../cookies.js';
import { route } from '../route.js';

/** Setup, sign-in and sign-out, password change and reset redemption. */
export const authRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/setup', tag: 'auth', auth: 'public', status: 200,
    summary: 'Whether first-run setup has been done (no credentials needed); never shows the code.',
    response: SetupStatus,
    handler: async () => ({ done: await s.setup.done() }),
  }),
  route({
    method: 'POST', path: '/setup', tag: 'auth', auth: 'public', status: 201,
    summary: 'First run: create the first global administrator and the network, and sign in.',
    description: 'Needs the one-time code from `<data-dir>/setup-code`. Works once.',
    body: Setup, response: User,
    errors: ['invalid_setup_code', 'setup_done', 'too_many_attempts', 'conflict'],
    audit: { action: 'setup.complete', targetKind: 'user' },
    handler: async ({ body, clientAddress, audit, ctx }) => {
      const { user, sessionId } = await s.setup.run(body, clientAddress, audit);
      ctx.set('Set-Cookie', sessionCookie(sessionId, s.sessionPolicy.absoluteSeconds));
      return userView(user);
    },
  }),
  route({
    method: 'POST', path: '/auth/login', tag: 'auth', auth: 'public', status: 200,
    summary: 'Sign in with a username (or email) and password; sets the session cookie.',
    description: 'With TOTP on, `totpCode` is needed too (a current code, or an unused recovery code, used up then): without it 401 `totp_required`; a wrong one counts as a wrong password.',
    body: Login, response: User,
    errors: ['invalid_credentials', 'totp_required', 'too_many_attempts'],
    audit: { action: 'session.create', targetKind: 'user' },
    handler: async ({ body, clientAddress, audit, ctx }) => {
      const { user, sessionId } = await s.auth.login(body, clientAddress, audit);
      ctx.set('Set-Cookie', sessionCookie(sessionId, s.sessionPolicy.absoluteSeconds));
      return userView(user);
    },
  }),
  route({
    method: 'POST', path: '/auth/logout', tag: 'auth', auth: 'signed-in', status: 204,
    summary: 'Sign out: ends the session on the server and clears the cookie.',
    audit: { action: 'session.delete', targetKind: 'user' },
    handler: async ({ caller, audit, ctx }) => {
      await s.auth.logout(caller, audit);
      ctx.set('Set-Cookie', clearedSessionCookie());
    },
  }),
  route({
    method: 'POST', path: '/auth/password-reset', tag: 'auth', auth: 'public', status: 204,
    summary: 'Redeem a password-reset secret (valid 24 hours, once); ends every session of the user.',
    body: RedeemPasswordReset,
    errors: ['invalid_token', 'too_many_attempts'],
    audit: { action: 'user.password_reset_redeem', targetKind: 'user' },
    handler: async ({ body, clientAddress, audit }) => {
      await s.auth.redeemReset(body, clientAddress, audit);
    },
  }),
  route({
    method: 'POST', path: '/me/password', tag: 'me', auth: 'signed-in', status: 204,
    summary: 'Change your own password; clears passwordChangeRequired and ends your other sessions.',
    body: ChangePassword,
    audit: { action: 'user.password_change', targetKind: 'user' },
    handler: async ({ caller, body, audit }) => {
      await s.auth.changePassword(caller, body, audit);
    },
  }),
];
