import type { Ajv, ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { invalidRequest } from '../core/errors.js';
import { jsonAjv, textAjv } from '../schemas/validators.js';
import { describeError } from './validation-messages.js';

const cache = new WeakMap<object, Map<Ajv, ValidateFunction>>();

function compiled(ajv: Ajv, schema: TSchema): ValidateFunction {
  let perAjv = cache.get(schema);
  if (!perAjv) cache.set(schema, (perAjv = new Map<Ajv, ValidateFunction>()));
  let fn = perAjv.get(ajv);
  if (!fn) perAjv.set(ajv, (fn = ajv.compile(schema)));
  return fn;
}

export function validateBody<T>(schema: TSchema, value: unknown, where = 'body'): T {
  const fn = compiled(jsonAjv, schema);
  if (!fn(value)) throw invalidRequest(describeError(where, fn.errors));
  return value as T;
}

/** Coerces text to the schema's types and fills in defaults, in place (query/params), then validates. */
export function validateText<T>(schema: TSchema, value: Record<string, unknown>, where: string): T {
  const fn = compiled(textAjv, schema);
  if (!fn(value)) throw invalidRequest(describeError(where, fn.errors));
  return value as T;
}

/** Responses are checked too: a shape drift is our bug, caught as a 500 in tests rather than shipped. */
export function checkResponse(schema: TSchema, value: unknown): string | undefined {
  const fn = compiled(jsonAjv, schema);
  return fn(value) ? undefined : describeError('response', fn.errors);
}
