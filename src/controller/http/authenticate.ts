import type { Context } from 'koa';
import type { SessionService } from '../services/identity/sessions.js';
import type { TokenService } from '../services/identity/tokens.js';
import { callerUser } from '../services/identity/caller-user.js';
import type { Caller } from '../core/caller.js';
import { readSessionCookie } from './cookies.js';
import { forbidden } from '../core/errors.js';

/** Resolves the caller from `Authorization: Bearer` (API token) or the session cookie. */
export class Authenticator {
  constructor(private readonly sessions: SessionService, private readonly tokens: TokenService) {}

  /** At once (no promise) for a session the store holds in memory: see `SessionService.resolve`. */
  resolve(ctx: Context): Caller | undefined | Promise<Caller | undefined> {
    // Node's header object, as `ctx.get` reads it, without Koa's lookup by a lower-cased name: this runs on every request.
    const { authorization, cookie } = ctx.req.headers;
    if (authorization) return this.bearer(authorization);
    const sessionId = readSessionCookie(cookie);
    return sessionId ? this.sessions.resolve(sessionId) : undefined;
  }

  private async bearer(authorization: string): Promise<Caller | undefined> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) return undefined;
    const found = await this.tokens.resolve(match[1]);
    return found ? { kind: 'API_TOKEN', user: callerUser(found.user), tokenId: found.tokenId, ...(found.scope ? { scope: found.scope } : {}) } : undefined;
  }
}

/**
 * CSRF: a browser sends the cookie with any cross-site request, so a cookie-authenticated
 * state-changing request whose Origin names another origin is refused. Bearer tokens are
 * not sent by browsers on their own and need no such check. A browser that leaves Origin out
 * still says where the request comes from in `Sec-Fetch-Site`.
 */
export function refuseCrossOrigin(ctx: Context, caller: Caller | undefined): void {
  if (!caller || caller.kind !== 'USER' || ctx.method === 'GET' || ctx.method === 'HEAD') return;
  const origin = ctx.get('origin');
  if (!origin) {
    if (ctx.get('sec-fetch-site') === 'cross-site') throw forbidden('Cross-site request refused.');
    return;
  }
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== ctx.host) throw forbidden('Cross-origin request refused.');
}
