import type { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../shared/logger.js';
import type { AuditService } from '../services/audit/audit.js';
import { refuseCrossOrigin, type Authenticator } from './authenticate.js';
import { readSessionCookie } from './cookies.js';
import type { AuditScope } from '../core/audit-scope.js';
import type { Caller } from '../core/caller.js';
import { DomainError, invalidRequest } from '../core/errors.js';
import { StoreUnavailableError } from '../core/store-unavailable.js';
import { statusOf, toDomainError } from './problem.js';
import { koaPath, newAuditScope, type AnyRoute } from './route.js';
import { checkResponse, validateBody, validateText } from './schema-registry.js';
import { guardBody } from './body-guard.js';
import type { UploadGate } from './upload-gate.js';
import { authFailureReasons, type AuthFailureReason } from '../metrics/registry.js';
import type { TrustedProxies } from './client-address.js';

export interface MountDeps {
  authenticator: Authenticator;
  audit: AuditService;
  logger: Logger;
  /** Fail (500) when a response does not match its schema; on in tests. */
  checkResponses: boolean;
  jsonLimitBytes: number;
  uploads: UploadLimits;
  /** Counts a request refused for want of valid credentials (`cairn_auth_failures_total`). */
  countAuthFailure: (reason: AuthFailureReason) => void;
  /** `--trust-proxy`: whose X-Forwarded-For names the client. */
  proxies: TrustedProxies;
}

/** How raw bodies are let in: the slots shared by all uploads, and how long a client may go quiet. */
export interface UploadLimits {
  gate: UploadGate;
  silenceMs: number;
}

const jsonContentType = 'application/json; charset=utf-8';

// koa-body and what it pulls in (formidable, co-body) take ≈ 0.1 s of CPU to load: the first request with a body loads them, not the start.
let koaBodyModule: Promise<typeof import('koa-body')> | undefined;

function jsonBody(limit: number): Middleware {
  let parser: Promise<Middleware> | undefined;
  return async (ctx, next) => {
    // DELETE too: a route declares whether it takes a body (DELETE /me/totp takes the code), and only those read one.
    parser ??= (koaBodyModule ??= import('koa-body')).then(({ koaBody, HttpMethodEnum }) =>
      koaBody({
        json: true, urlencoded: false, text: false, multipart: false, jsonLimit: limit, jsonStrict: false,
        parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      }));
    await (await parser)(ctx, next);
  };
}

const hasBody = (ctx: Context) => Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';

async function readJson(ctx: Context, parse: ReturnType<typeof jsonBody>, limitBytes: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  if (!ctx.request.is('application/json', '+json')) throw invalidRequest('Content-Type must be application/json.');
  try {
    await parse(ctx, async () => undefined);
  } catch (e) {
    // As a problem here, so the audit event names it (too_large, invalid_request) like any other refusal.
    throw toDomainError(e, limitBytes) ?? e;
  }
  return ctx.request.body;
}

/** What a handler gets; a class, so that making one a request is cheap (an object literal with a getter is not). */
class HandlerInput {
  constructor(
    readonly body: unknown,
    readonly query: Record<string, unknown> | undefined,
    readonly params: unknown,
    readonly caller: Caller | undefined,
    readonly audit: AuditScope,
    readonly ctx: Context,
    readonly upload: Readable,
    private readonly proxies: TrustedProxies,
  ) {}

  /** Read only by the few handlers that key throttles on it or record it (sign-in, setup): not worked out for every read. */
  get clientAddress(): string {
    return this.proxies.clientAddress(this.ctx.request.ip, this.ctx.get('x-forwarded-for') || undefined);
  }
}

function authFailureReason(ctx: Context, code: string | undefined, known: string | undefined): AuthFailureReason {
  if (known && (authFailureReasons as readonly string[]).includes(known)) return known as AuthFailureReason;
  if (code === 'too_many_attempts') return 'throttled';
  if (code === 'invalid_setup_code') return 'bad_setup_code';
  if (code === 'invalid_credentials') return 'bad_password';
  return ctx.get('authorization') || readSessionCookie(ctx.get('cookie')) ? 'invalid_token' : 'missing_credentials';
}

/**
 * Mounts one route: authenticate, enforce the password-change rule and CSRF, validate params,
 * query and body against the route's schemas, call the handler, check the answer against the
 * response schema, and write the audit event whatever happened.
 */
export function mountRoute(router: Router, route: AnyRoute, deps: MountDeps): void {
  const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const parse = jsonBody(deps.jsonLimitBytes);
  router[method](koaPath(route.path), async (ctx) => {
    const audit = newAuditScope(route);
    let caller: Caller | undefined;
    let leaveGate: (() => void) | undefined;
    let upload: Readable = ctx.req;
    let answered = false;
    let dryRun = false;
    try {
      const resolved = deps.authenticator.resolve(ctx);
      caller = resolved instanceof Promise ? await resolved : resolved;
      const auth = route.auth ?? 'user';
      if (auth !== 'public') {
        if (!caller) throw new DomainError('unauthenticated');
        if (auth === 'user' && caller.user.passwordChangeRequired) throw new DomainError('password_change_required');
      }
      refuseCrossOrigin(ctx, caller);
      const params = route.params ? validateText(route.params, { ...ctx.params }, 'path') : undefined;
      const query = route.query ? validateText<Record<string, unknown>>(route.query, { ...ctx.query }, 'query') : undefined;
      dryRun = route.dryRun === true && query?.dryRun === true;
      let body: unknown;
      if (route.body) {
        const raw = await readJson(ctx, parse, deps.jsonLimitBytes);
        // Only an absent body counts as `{}`: a JSON `null` is a body of the wrong type.
        body = validateBody(route.body, raw === undefined ? {} : raw);
      }
      if (route.rawBody) {
        leaveGate = await deps.uploads.gate.enter(caller?.user._id);
        upload = guardBody(ctx.req, deps.uploads.silenceMs);
      }
      if (audit && !dryRun) await deps.audit.makeRoom();
      const result = await route.handler(new HandlerInput(body, query, params, caller, audit!, ctx, upload, deps.proxies));
      if (route.stream || ctx.respond === false) return;
      if (route.response) {
        if (deps.checkResponses) {
          const mismatch = checkResponse(route.response, result);
          if (mismatch) throw new Error(`${route.method} ${route.path}: ${mismatch}`);
        }
        if (route.serialize) {
          // As `ctx.type = 'json'` sets it, without looking the type up each request.
          ctx.set('Content-Type', jsonContentType);
          ctx.body = route.serialize(result);
        } else ctx.body = result;
      }
      ctx.status = dryRun ? 200 : route.status;
      answered = true;
      if (audit && !dryRun) await deps.audit.record(audit, caller, 'SUCCESS', true);
    } catch (error) {
      const known = toDomainError(error, deps.jsonLimitBytes);
      const status = known ? statusOf(known) : 500;
      // A refusal for want of valid credentials is counted, not audited one by one (a flood must not
      // grow the log): sign-in refusals reach the log aggregated (LoginFailureLog), others not at all.
      if (!caller && (status === 401 || (status === 429 && known?.code === 'too_many_attempts' && route.auth === 'public'))) {
        deps.countAuthFailure(authFailureReason(ctx, known?.code, audit?.authFailure));
        // A wrong setup code stays audited as well: setup happens once and is rate limited, so it cannot flood the log.
        if (known?.code !== 'invalid_setup_code') throw error;
      }
      // A change answered but not audited already has its event's failure logged: no FAILED event for it.
      if (audit && !answered && !dryRun) {
        // Refusals (no credentials, not allowed, rate limited, hidden) are DENIED; everything else that went wrong is FAILED.
        const denied = status === 401 || status === 403 || status === 429 || Boolean(known?.denied);
        if (known) audit.detail({ error: known.code });
        const recorded = deps.audit.record(audit, caller, denied ? 'DENIED' : 'FAILED');
        // A store that did not answer the request will not answer its event sooner: the 503 goes out now, and the event
        // is stored, or its loss logged, when the store decides (record() never throws for an event not required).
        if (!(error instanceof StoreUnavailableError)) await recorded;
      }
      throw error;
    } finally {
      leaveGate?.();
      // A body the handler left unread (refused before reading) stops its silence clock here.
      if (upload !== ctx.req) upload.destroy();
    }
  });
}
