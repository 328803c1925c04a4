import type { Filter } from './collection.js';

/**
 * A filter that names `undefined` means different things per engine: MongoDB matches documents
 * lacking the field, nedb matches none. Both adapters refuse it, so the bug shows in every test.
 */
export class UndefinedInFilterError extends Error {
  constructor(readonly path: string) {
    super(`filter field ${path} is undefined`);
    this.name = 'UndefinedInFilterError';
  }
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** Throws when any field of the filter, at any depth (inside $and/$or too), is `undefined`. */
export function assertDefinedFilter(filter: Filter, path = ''): void {
  for (const [k, v] of Object.entries(filter)) {
    const at = path ? `${path}.${k}` : k;
    if (v === undefined) throw new UndefinedInFilterError(at);
    if (Array.isArray(v)) v.forEach((item, i) => isPlainObject(item) && assertDefinedFilter(item, `${at}.${i}`));
    else if (isPlainObject(v)) assertDefinedFilter(v, at);
  }
}

/**
 * A copy without `undefined` fields, at every depth: both engines then store the same thing (nedb
 * would keep the field in memory until its next load; MongoDB would store null or drop it as
 * `ignoreUndefined` says). Array elements that are `undefined` become null, as JSON does.
 */
export function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => (v === undefined ? null : withoutUndefined(v))) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = withoutUndefined(v);
  return out as T;
}

/** The fields a `$set` names as undefined: removing them is what storing the document would do. */
export const undefinedFieldsOf = (set: object): string[] => Object.entries(set).filter(([, v]) => v === undefined).map(([k]) => k);
