import type { Static, TSchema } from 'typebox';
import { jsonAjv } from '../../schemas/validators.js';
import { UpstreamError } from './upstream-http.js';

const compiled = new WeakMap<TSchema, ReturnType<typeof jsonAjv.compile>>();

/** The answer as its schema types it, or an UpstreamError naming the URL and the first wrong field. */
export function checkedAnswer<S extends TSchema>(schema: S, value: unknown, url: string): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = jsonAjv.compile(schema)));
  if (!validate(value)) {
    const e = validate.errors?.[0];
    throw new UpstreamError(`${url} answered an unexpected shape (${e?.instancePath || '/'} ${e?.message ?? 'invalid'})`);
  }
  return value as Static<S>;
}
