import { IdParams } from '../../schemas/common.js';
import { ConfirmTotp, TotpCodeBody, TotpEnrolment, TotpRecoveryCodes } from '../../schemas/totp.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

/** The TOTP second factor: your own enrolment and switch-off, and an administrator's reset. */
export const totpRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/me/totp', tag: 'me', status: 200,
    summary: 'Start turning on TOTP: a new seed, pending until confirmed (a new call replaces a pending one).',
    description: 'The seed is in this answer only; the Controller keeps it encrypted. Refused with 409 while TOTP is on.',
    response: TotpEnrolment, errors: ['conflict'],
    audit: { action: 'user.totp_enrol', targetKind: 'user' },
    handler: async ({ caller, audit }) => s.totp.enrol(caller, audit),
  }),
  route({
    method: 'POST', path: '/me/totp/confirm', tag: 'me', status: 200,
    summary: 'Turn TOTP on with the first code of the pending seed; answers the ten recovery codes, once.',
    description: 'Needs `password`, the current one (400 naming body.password when missing or wrong); an account without a password (single sign-on) instead confirms within 10 minutes of signing in with the provider, in that session (else 403). From then on, signing in with a password also needs `totpCode`. Every other session of the account ends (the confirming one stays); API tokens keep working. Five wrong codes or passwords per 15 minutes, then 429.',
    body: ConfirmTotp, response: TotpRecoveryCodes, errors: ['conflict', 'too_many_attempts'],
    audit: { action: 'user.totp_enable', targetKind: 'user' },
    handler: async ({ caller, body, audit }) => s.totp.confirm(caller, body, audit),
  }),
  route({
    method: 'DELETE', path: '/me/totp', tag: 'me', status: 204,
    summary: 'Turn TOTP off with a current code or an unused recovery code.',
    body: TotpCodeBody, errors: ['conflict', 'too_many_attempts'],
    audit: { action: 'user.totp_disable', targetKind: 'user' },
    handler: async ({ caller, body, audit }) => s.totp.disable(caller, body.code, audit),
  }),
  route({
    method: 'DELETE', path: '/users/{userId}/totp', tag: 'users', status: 204,
    summary: 'Turn a user\'s TOTP off, for a lost device (global administrators); the user may enrol again.',
    params: IdParams('userId'),
    audit: { action: 'user.totp_reset', targetKind: 'user' },
    handler: async ({ caller, params, audit }) => s.totp.reset(caller, params.userId, audit),
  }),
];
