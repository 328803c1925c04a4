import Type, { type TOptional, type TSchema } from 'typebox';
import { maxCursorLength } from '../core/cursor-limit.js';

/**
 * A query field the client may leave out because validation fills in its `default`: optional in
 * the schema and the API reference, always present in the handler's input. The mark is in the
 * type only; `route()` reads it.
 */
export type TDefaulted<T extends TSchema = TSchema> = TOptional<T> & { readonly '~defaulted': true };

export function Defaulted<T extends TSchema>(type: T): TDefaulted<T> {
  if (!('default' in type)) throw new Error('Defaulted: the schema needs a default');
  return Type.Optional(type) as unknown as TDefaulted<T>;
}

/**
 * A name people type: 1 to `max` characters with no control characters (NUL, line breaks, escapes),
 * which would corrupt logs, terminals and audit trails that print names.
 */
export const PrintableName = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^[^\\x00-\\x1f\\x7f]+$', ...(description ? { description } : {}) });

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });
export const DateTime = Type.String({ format: 'date-time' });

export const IdParams = <N extends string>(name: N) =>
  Type.Object({ [name]: Uuid } as Record<N, typeof Uuid>, { additionalProperties: false });

/** The spec's paging bounds: limit 1..200 (default 50), cursor at most 200 characters. */
export const pageQueryFields = {
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200.' })),
  cursor: Type.Optional(Type.String({ maxLength: maxCursorLength, description: 'The nextCursor of the previous page.' })),
};
export const PageQuery = Type.Object(pageQueryFields, { additionalProperties: false });

export const Paged = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    nextCursor: Type.Optional(Type.String({ description: 'Present when there are more items.' })),
  });

export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  code: Type.String(),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: '`upload_offset_mismatch`: the bytes the upload holds, where to continue.' })),
});

export const Int64 = Type.Integer({ format: 'int64' });

/** Amounts of the three resources, in a Node's status and a server's usage. */
export const ResourceAmountsSchema = Type.Object({
  cpuMillis: Int64,
  memoryBytes: Int64,
  diskBytes: Int64,
}, { description: 'cpuMillis in thousandths of a core; memoryBytes and diskBytes in bytes.' });

/** Why observed state differs from desired state, or why something is under pressure: on Nodes and on servers. */
export const ConditionSchema = Type.Object({
  id: Type.String({ description: 'Stable while the situation lasts.' }),
  source: Type.Union([Type.Literal('AGENT'), Type.Literal('CONTROLLER')]),
  reason: Type.String({ description: 'Machine-readable cause, e.g. DISK_PRESSURE, HEARTBEAT_MISSED, NODE_UNREACHABLE, CRASH_LOOP. Treat unknown reasons as unrecognised conditions.' }),
  message: Type.String(),
  since: DateTime,
});
