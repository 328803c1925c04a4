import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Static, TObject, TSchema } from 'typebox';
import { AuditScope } from '../core/audit-scope.js';
import type { Caller } from '../core/caller.js';
import type { ErrorCode } from '../core/errors.js';
import type { ApiTag } from './api-tags.js';
import type { TDefaulted } from '../schemas/common.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * - `public`: no credentials needed (setup, login, password-reset redemption).
 * - `signed-in`: any signed-in caller, even one who must change the password first
 *   (the spec's three exceptions: GET /me, POST /me/password, POST /auth/logout).
 * - `user`: signed in and not held by `passwordChangeRequired`.
 */
export type AuthMode = 'public' | 'signed-in' | 'user';

type StaticOf<S> = S extends TSchema ? Static<S> : undefined;

type DefaultedKeys<S> = S extends TObject<infer P> ? { [K in keyof P]: P[K] extends TDefaulted ? K : never }[keyof P] : never;
/** A validated query: fields with a default are always there, since validation fills them in. */
export type QueryOf<Q> = Q extends TSchema ? Static<Q> & Required<Pick<Static<Q>, Extract<DefaultedKeys<Q>, keyof Static<Q>>>> : undefined;

export interface RouteInput<B, Q, P, A extends AuthMode> {
  body: StaticOf<B>;
  query: QueryOf<Q>;
  params: StaticOf<P>;
  caller: A extends 'public' ? Caller | undefined : Caller;
  audit: AuditScope;
  clientAddress: string;
  ctx: Context;
  /**
   * The request body to stream, for `rawBody` routes: it holds one of the upload slots and fails
   * with `request_timeout` when the client goes quiet. Other routes get the bare request.
   */
  upload: Readable;
}

export interface RouteDef<B, Q, P, R, A extends AuthMode> {
  method: Method;
  /** OpenAPI-style path under /api/v1, e.g. `/users/{userId}`. */
  path: string;
  summary: string;
  tag: ApiTag;
  description?: string;
  /** Defaults to `user`. */
  auth?: A;
  body?: B;
  query?: Q;
  params?: P;
  /** Success status; the handler may still answer otherwise through ctx (e.g. a stream). */
  status: number;
  /** Absent for bodiless answers (204) and for streams, which set `stream`. */
  response?: R;
  /**
   * Writes the answer's JSON itself, byte for byte as `JSON.stringify` would (see page-json.ts),
   * for answers that can do it for less.
   */
  serialize?(result: StaticOf<R>): string;
  /** Media type of a non-JSON success body, documented in OpenAPI (e.g. `text/event-stream`). */
  stream?: string;
  /** Raw request body (e.g. octet-stream); the handler streams `upload` itself. */
  rawBody?: { mediaType: string; maxBytes: number };
  /**
   * The route takes `?dryRun=true` (its query schema has `dryRun`): the handler makes every check
   * of the real call and changes nothing. Such a request is answered 200 (nothing was created or
   * accepted) and writes no audit event, refused or not: nothing happened to record, as for a read.
   */
  dryRun?: boolean;
  /** Every state-changing route names its audit action; reads have none. */
  audit?: { action: string; targetKind: string };
  /**
   * Error codes this route answers beyond those its declaration implies (credentials, parameters,
   * body: see openapi-problems.ts), for the API reference.
   */
  errors?: ErrorCode[];
  handler(input: RouteInput<B, Q, P, A>): Promise<StaticOf<R> | void>;
}

/** Routes are stored type-erased; `route()` is where the types are checked. */
export type AnyRoute = RouteDef<TSchema | undefined, TSchema | undefined, TSchema | undefined, TSchema | undefined, AuthMode>;

export function route<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  R extends TSchema | undefined = undefined,
  A extends AuthMode = 'user',
>(def: RouteDef<B, Q, P, R, A>): AnyRoute {
  if (def.method !== 'GET' && !def.audit) throw new Error(`${def.method} ${def.path} changes state and must name its audit action`);
  return def;
}

export const newAuditScope = (def: AnyRoute) => (def.audit ? new AuditScope(def.audit.action, def.audit.targetKind) : undefined);

/** `/users/{userId}` → `/users/:userId` for @koa/router. */
export const koaPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
