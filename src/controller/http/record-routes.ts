import type { Static, TSchema } from 'typebox';
import type { AuditScope } from '../core/audit-scope.js';
import type { Caller } from '../core/caller.js';
import type { ErrorCode } from '../core/errors.js';
import { IdParams, PageQuery, Paged } from '../schemas/common.js';
import { ServerParams } from '../schemas/servers.js';
import type { ApiTag } from './api-tags.js';
import { route, type AnyRoute, type QueryOf } from './route.js';

/** What an endpoint of a record still says itself. */
interface Doc {
  summary: string;
  description?: string;
  errors?: ErrorCode[];
}

type Page<I extends TSchema> = Static<ReturnType<typeof Paged<I>>>;

/**
 * The usual endpoints of one kind of record, each declared with `route()` as one call that names
 * the service answering it (`() => s.teams`: looked up when a request comes, as a handler would,
 * so routes are declared without touching a service). The shape fixes the rest:
 *
 * | call | endpoint | success | audit action | service call |
 * |---|---|---|---|---|
 * | `create` | `POST {path}` | 201 | `<kind>.create` | `create(caller, body, audit)` |
 * | `list` | `GET {path}` (PageQuery unless `query`) | 200 | | `list(caller, query)` |
 * | `listForServer` | `GET /servers/{serverId}{path}` | 200 | | `listForServer(caller, serverId, query)` |
 * | `get` | `GET {path}/{id}` | 200 | | `get(caller, id)` |
 * | `update` | `PATCH {path}/{id}` | 200 | `<kind>.update` | `update(caller, id, body, audit)` |
 * | `delete` | `DELETE {path}/{id}` | 204 | `<kind>.delete` | `delete(caller, id, audit)` |
 *
 * Audited on a `<kind>` target. An endpoint of another shape is declared with `route()` itself.
 */
export function recordRoutes<Id extends string>({ tag, kind, path, id }: { tag: ApiTag; kind: string; path: string; id: Id }) {
  const params = IdParams(id);
  const one = `${path}/{${id}}`;
  const audit = (verb: string) => ({ action: `${kind}.${verb}`, targetKind: kind });
  // `route()` checks a handler against its schemas; here the service's signature, typed by each
  // call's schemas, is what is checked, and the definitions go to `route()` as written.
  const declare = (def: object) => route(def as Parameters<typeof route>[0]);
  return {
    create: <B extends TSchema, R extends TSchema>(
      service: () => { create(caller: Caller, body: Static<B>, audit: AuditScope): Promise<Static<R>> },
      def: Doc & { body: B; response: R },
    ): AnyRoute => declare({
      method: 'POST', path, tag, status: 201, ...def, audit: audit('create'),
      handler: async (input: { caller: Caller; body: Static<B>; audit: AuditScope }) => service().create(input.caller, input.body, input.audit),
    }),
    list: <I extends TSchema, Q extends TSchema = typeof PageQuery>(
      service: () => { list(caller: Caller, query: QueryOf<Q>): Promise<Page<I>> },
      { item, query, ...def }: Doc & { item: I; query?: Q },
    ): AnyRoute => declare({
      method: 'GET', path, tag, status: 200, ...def, query: query ?? PageQuery, response: Paged(item),
      handler: async (input: { caller: Caller; query: QueryOf<Q> }) => service().list(input.caller, input.query),
    }),
    listForServer: <I extends TSchema, Q extends TSchema = typeof PageQuery>(
      service: () => { listForServer(caller: Caller, serverId: string, query: QueryOf<Q>): Promise<Page<I>> },
      { item, query, ...def }: Doc & { item: I; query?: Q },
    ): AnyRoute => declare({
      method: 'GET', path: `/servers/{serverId}${path}`, tag, status: 200, ...def, params: ServerParams, query: query ?? PageQuery, response: Paged(item),
      handler: async (input: { caller: Caller; params: { serverId: string }; query: QueryOf<Q> }) =>
        service().listForServer(input.caller, input.params.serverId, input.query),
    }),
    get: <R extends TSchema>(
      service: () => { get(caller: Caller, id: string): Promise<Static<R>> },
      def: Doc & { response: R },
    ): AnyRoute => declare({
      method: 'GET', path: one, tag, status: 200, ...def, params,
      handler: async (input: { caller: Caller; params: Record<Id, string> }) => service().get(input.caller, input.params[id]),
    }),
    update: <B extends TSchema, R extends TSchema>(
      service: () => { update(caller: Caller, id: string, body: Static<B>, audit: AuditScope): Promise<Static<R>> },
      def: Doc & { body: B; response: R },
    ): AnyRoute => declare({
      method: 'PATCH', path: one, tag, status: 200, ...def, params, audit: audit('update'),
      handler: async (input: { caller: Caller; params: Record<Id, string>; body: Static<B>; audit: AuditScope }) =>
        service().update(input.caller, input.params[id], input.body, input.audit),
    }),
    delete: (
      service: () => { delete(caller: Caller, id: string, audit: AuditScope): Promise<void> },
      def: Doc,
    ): AnyRoute => declare({
      method: 'DELETE', path: one, tag, status: 204, ...def, params, audit: audit('delete'),
      handler: async (input: { caller: Caller; params: Record<Id, string>; audit: AuditScope }) => service().delete(input.caller, input.params[id], input.audit),
    }),
  };
}
