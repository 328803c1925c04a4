import Type, { type TSchema } from 'typebox';
import { maxCursorLength } from '../domain/cursor.js';

export const Uuid = Type.String({ format: 'uuid', description: 'A UUID.' });
export const DateTime = Type.String({ format: 'date-time' });

export const IdParams = <N extends string>(name: N) =>
  Type.Object({ [name]: Uuid } as Record<N, typeof Uuid>, { additionalProperties: false });

/** The spec's paging bounds: limit 1..200 (default 50), cursor at most 200 characters. */
export const pageQueryFields = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200.' })),
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
});
