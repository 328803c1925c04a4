import { AuthMethods, OidcCallbackQuery, OidcSetting, PutOidcSetting } from '../../schemas/oidc.js';
import type { Services } from '../../services/index.js';
import { oidcFlowSeconds } from '../../services/identity/oidc-login.js';
import { sessionCookie } from '../cookies.js';
import { clearedOidcFlowCookie, oidcFlowCookie, readOidcFlowCookie } from '../oidc-cookie.js';
import { route } from '../route.js';

/** Single sign-on with an OpenID provider: its setting, the sign-in methods, and the code flow's two legs. */
export const oidcRoutes = (s: Services) => [
  route({
    method: 'GET', path: '/auth/methods', tag: 'auth', auth: 'public', status: 200,
    summary: 'How one may sign in here (no credentials needed): password, and the single sign-on provider when set.',
    response: AuthMethods,
    handler: () => s.oidc.settings.methods(),
  }),
  route({
    method: 'GET', path: '/auth/oidc', tag: 'auth', status: 200,
    summary: 'The single sign-on setting (global administrators); never the client secret.',
    response: OidcSetting,
    errors: ['not_found'],
    handler: ({ caller }) => s.oidc.settings.get(caller),
  }),
  route({
    method: 'PUT', path: '/auth/oidc', tag: 'auth', status: 200,
    summary: 'Set single sign-on with an OpenID provider (global administrators); the provider must answer discovery.',
    description: 'Register `<--public-url>/api/v1/auth/oidc/callback` (or `redirectUri`) at the provider. Groups map to global administration and team roles at every sign-in and every re-validation of a session. With `allowPasswordLogin` false, password sessions of all but global administrators end.',
    body: PutOidcSetting, response: OidcSetting,
    audit: { action: 'auth.oidc.update', targetKind: 'setting' },
    handler: ({ caller, body, audit }) => s.oidc.settings.put(caller, body, audit),
  }),
  route({
    method: 'DELETE', path: '/auth/oidc', tag: 'auth', status: 204,
    summary: 'Turn single sign-on off (global administrators); its users stay, password sign-in opens to all again.',
    audit: { action: 'auth.oidc.delete', targetKind: 'setting' },
    handler: ({ caller, audit }) => s.oidc.settings.delete(caller, audit),
  }),
  route({
    method: 'GET', path: '/auth/oidc/login', tag: 'auth', auth: 'public', status: 302,
    summary: 'Start signing in with the provider: redirects there (authorization code, PKCE S256, state, nonce).',
    description: 'The provider sends the browser back to `redirectUri`, else to `<--public-url>/api/v1/auth/oidc/callback`; with neither, `conflict`.',
    errors: ['not_found', 'conflict'],
    handler: async ({ ctx }) => {
      const { url, flow } = await s.oidc.login.start();
      ctx.set('Set-Cookie', oidcFlowCookie(flow, oidcFlowSeconds));
      ctx.redirect(url);
    },
  }),
  route({
    method: 'GET', path: '/auth/oidc/callback', tag: 'auth', auth: 'public', status: 302,
    summary: 'Where the provider sends the browser back: signs in and redirects to `/`, or to `/sign-in?error=<code>`.',
    description: 'Codes: `oidc_state` (no or another sign-in\'s state), `oidc_denied` (the provider answered an error), `oidc_invalid_token` (the code exchange or the ID token\'s checks failed).',
    query: OidcCallbackQuery, errors: ['too_many_attempts'],
    audit: { action: 'auth.oidc.login', targetKind: 'user' },
    handler: async ({ ctx, audit, clientAddress }) => {
      const outcome = await s.oidc.login.finish(readOidcFlowCookie(ctx.get('cookie')), new URLSearchParams(ctx.querystring), audit, clientAddress);
      if ('failure' in outcome) {
        ctx.set('Set-Cookie', clearedOidcFlowCookie());
        ctx.redirect(`/sign-in?error=${outcome.failure}`);
        return;
      }
      ctx.set('Set-Cookie', [clearedOidcFlowCookie(), sessionCookie(outcome.sessionId, s.sessionPolicy.absoluteSeconds)]);
      ctx.redirect('/');
    },
  }),
];
