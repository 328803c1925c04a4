import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** A user of the test provider; its sub is also what one types as the login on its sign-in page. */
export interface ProviderUser {
  sub: string;
  preferred_username?: string;
  email?: string;
  name?: string;
  groups: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** By sub; change a user's groups here and the next sign-in or refresh sees them; a user deleted here is refused a refresh. */
  users: Map<string, ProviderUser>;
  /** When set, token responses pass through it: how tests hand the Controller a bad ID token. */
  rewriteIdToken?: (idToken: string) => Promise<string>;
  /** When set, the token endpoint answers this much later: a slow provider, so concurrent callbacks overlap. */
  tokenDelayMs?: number;
  /** Signs claims with the provider's own key (a token the Controller must check on its merits). */
  signWithProviderKey: (claims: JWTPayload) => Promise<string>;
  /** Signs claims with a key the provider never published, under the provider's key id. */
  signWithStrangerKey: (claims: JWTPayload) => Promise<string>;
  close(): Promise<void>;
}

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A real OpenID Provider (oidc-provider) on a local port, with its own signing key, users with
 * groups, one confidential client registered with `redirectUris`, and its development sign-in and
 * consent pages (any password is accepted). Claims beyond `sub` reach the client through userinfo,
 * as with providers that keep ID tokens small.
 */
export async function startOidcProvider(redirectUris: string[]): Promise<TestOidcProvider> {
  const kid = 'test-key';
  const own = await generateKeyPair('RS256', { extractable: true });
  const stranger = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(own.privateKey)), kid, alg: 'RS256', use: 'sig' };
  const users = new Map<string, ProviderUser>();
  // Both servers answer with the provider, made once the outer one's port (its issuer) is known.
  const app: { handler?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  const inner = createServer((req, res) => app.handler!(req, res));
  const innerPort = await listen(inner);
  const outer = createServer((req, res) => {
    const answer = () => {
      if (req.method === 'POST' && req.url === '/token' && result.rewriteIdToken) void proxyToken(req, res, result.rewriteIdToken);
      else app.handler!(req, res);
    };
    if (req.method === 'POST' && req.url === '/token' && result.tokenDelayMs) setTimeout(answer, result.tokenDelayMs);
    else answer();
  });
  const port = await listen(outer);
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'cairn';
  const clientSecret = 'cairn-client-secret-0123456789';
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris,
      response_types: ['code'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    // Refresh tokens without asking for offline_access, as Keycloak issues them: what keeps a Controller's session past its re-validation.
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    jwks: { keys: [privateJwk] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'], email: ['email'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    findAccount: (_ctx: unknown, sub: string) => {
      const user = users.get(sub);
      return user && { accountId: sub, claims: () => ({ ...users.get(sub) }) };
    },
  });
  app.handler = provider.callback();

  /** Passes the token request to the provider, then hands back its answer with the ID token rewritten. */
  async function proxyToken(req: IncomingMessage, res: ServerResponse, rewrite: (idToken: string) => Promise<string>) {
    const answer = await fetch(`http://127.0.0.1:${innerPort}/token`, {
      method: 'POST', body: await readBody(req),
      headers: { 'content-type': req.headers['content-type'] ?? '', authorization: req.headers.authorization ?? '' },
    });
    const body = (await answer.json()) as Record<string, unknown>;
    if (typeof body.id_token === 'string') body.id_token = await rewrite(body.id_token);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  const sign = (key: CryptoKey, claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(key);
  const result: TestOidcProvider = {
    issuer, clientId, clientSecret, users,
    signWithProviderKey: (claims) => sign(own.privateKey, claims),
    signWithStrangerKey: (claims) => sign(stranger.privateKey, claims),
    close: async () => {
      outer.closeAllConnections();
      inner.closeAllConnections();
      await Promise.all([close(outer), close(inner)]);
    },
  };
  return result;
}

/** The ID token's claims changed by `change`, signed by `sign`: a rewriter for `rewriteIdToken`. */
export const changedIdToken = (sign: (claims: JWTPayload) => Promise<string>, change: (claims: JWTPayload) => JWTPayload) =>
  (idToken: string) => sign(change(decodeJwt(idToken)));

/** Cookies per host, as a browser keeps them (paths, expiry and Secure left out: enough for these flows). */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  store(url: string, res: Response): void {
    const host = new URL(url).host;
    const cookies = this.byHost.get(host) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) cookies.delete(name);
      else cookies.set(name, value);
    }
    this.byHost.set(host, cookies);
  }

  get(url: string, name: string): string | undefined {
    return this.byHost.get(new URL(url).host)?.get(name);
  }

  header(url: string): string {
    return [...(this.byHost.get(new URL(url).host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

const unescapeHtml = (s: string) => s.replace(/&amp;/g, '&').replace(/&#x2F;/g, '/').replace(/&quot;/g, '"').replace(/&#39;/g, "'");

/**
 * Drives a sign-in as a browser would, with plain HTTP: follows redirects from `start` with the
 * jar, fills the provider's login page (`login`, any password) and its consent page, and stops at
 * the first redirect to a page of the Controller at `controllerBase` (outside /api/): where the
 * callback sent the browser, e.g. `/` or `/sign-in?error=oidc_state`.
 */
export async function browseSignIn(start: string, controllerBase: string, login: string, jar = new CookieJar()): Promise<string> {
  let url = start;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET', redirect: 'manual', body: form,
      headers: { cookie: jar.header(url), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    });
    jar.store(url, res);
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, url);
      if (next.origin === new URL(controllerBase).origin && !next.pathname.startsWith('/api/')) return next.pathname + next.search;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action) throw new Error(`${url} answered ${res.status}: ${html.slice(0, 300)}`);
    form = new URLSearchParams();
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.set(name, unescapeHtml(value));
    if (html.includes('name="login"')) {
      form.set('login', login);
      form.set('password', 'any-password');
    }
    url = new URL(unescapeHtml(action), url).href;
  }
  throw new Error(`no way back to the Controller after 20 hops from ${start}`);
}
