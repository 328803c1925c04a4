import { randomUUID } from 'node:crypto';
import {
  bodyCases, controlStrings, edgeDateTimes, exampleOf, hugeString, rawJsonCases, unicodeStrings, type Hint, type Rng, type Schema,
} from './schema-fuzz.js';

/** One operation of the OpenAPI document, as much of it as the fuzzer reads. */
export interface Operation {
  method: string;
  /** The path under /api/v1, e.g. `/servers/{serverId}`. */
  path: string;
  parameters: { name: string; in: 'path' | 'query'; required: boolean; schema: Schema }[];
  jsonBody?: Schema;
  rawBody?: string;
  stream?: string;
  isPublic: boolean;
}

export type Caller = 'admin' | 'token' | 'anonymous' | 'bad-token' | 'bad-cookie' | 'odd-headers';

export interface FuzzCase {
  op: Operation;
  label: string;
  /** Kept whatever the budget: a value that once broke the API. */
  always?: boolean;
  caller: Caller;
  /** The path and query, URL-encoded, under /api/v1. */
  url: string;
  body?: string | Buffer;
  contentType?: string;
  /** The statuses the case must get, when the schema alone decides it; otherwise any non-5xx problem or success. */
  expect?: number[];
}

export const opName = (op: Operation) => `${op.method} ${op.path}`;

/** Reads the operations of the served OpenAPI document. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [fullPath, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as {
        parameters?: Operation['parameters']; security?: unknown[];
        requestBody?: { content: Partial<Record<string, { schema: Schema }>> }; responses: Record<string, { content?: Record<string, unknown> }>;
      };
      const content = op.requestBody?.content ?? {};
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
      const successType = Object.keys(success?.content ?? {})[0];
      ops.push({
        method: method.toUpperCase(), path: fullPath.replace(/^\/api\/v1/, ''), parameters: op.parameters ?? [],
        jsonBody: content['application/json']?.schema,
        rawBody: Object.keys(content).find((type) => type !== 'application/json'),
        stream: successType === 'text/event-stream' ? successType : undefined,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return ops;
}

const enc = encodeURIComponent;

/** Raw path-parameter texts (already URL-encoded) and whether a uuid parameter must refuse them. */
function pathValues(existing: string | undefined, isUuid: boolean): { label: string; raw: string; invalid: boolean }[] {
  const values = [
    { label: 'not a uuid', raw: 'not-a-uuid', invalid: isUuid },
    { label: 'number', raw: '123', invalid: isUuid },
    { label: 'nil uuid', raw: '00000000-0000-0000-0000-000000000000', invalid: false },
    { label: 'unknown uuid', raw: randomUUID(), invalid: false },
    { label: 'NUL', raw: '%00', invalid: isUuid },
    { label: 'encoded slash', raw: `a%2F..%2F${randomUUID()}`, invalid: isUuid },
    { label: 'malformed escape', raw: '%E0%A4%A', invalid: isUuid },
    { label: 'long', raw: 'a'.repeat(4000), invalid: isUuid },
    ...unicodeStrings.slice(0, 3).map((u) => ({ label: `unicode ${JSON.stringify(u.slice(0, 8))}`, raw: enc(u), invalid: isUuid })),
    ...controlStrings.slice(1, 3).map((c) => ({ label: `control ${JSON.stringify(c)}`, raw: enc(c), invalid: isUuid })),
  ];
  if (existing) {
    values.push({ label: 'upper-case id', raw: existing.toUpperCase(), invalid: false });
    values.push({ label: 'urn:uuid: id', raw: `urn:uuid:${existing}`, invalid: false });
    values.push({ label: 'id with trailing text', raw: `${existing}x`, invalid: isUuid });
  }
  return values;
}

/** Query-parameter texts for one parameter: undefined `invalid` where the schema does not say on its own. */
interface QueryValue {
  label: string;
  raw: string[];
  invalid?: boolean;
  always?: boolean;
}

function queryValues(name: string, s: Schema): QueryValue[] {
  const base = s.anyOf?.find((b) => b.type !== 'null') ?? s;
  const values: QueryValue[] = [{ label: 'repeated', raw: ['1', '2'], invalid: true }];
  if (base.type === 'integer' || base.type === 'number') {
    values.push({ label: 'not a number', raw: ['abc'], invalid: true }, { label: 'huge', raw: ['9'.repeat(40)], invalid: base.maximum !== undefined });
    if (base.type === 'integer') values.push({ label: 'fraction', raw: ['1.5'], invalid: true });
    if (base.minimum !== undefined) values.push({ label: 'below minimum', raw: [String(base.minimum - 1)], invalid: true });
    if (base.maximum !== undefined) values.push({ label: 'above maximum', raw: [String(base.maximum + 1)], invalid: true });
  } else if (name === 'cursor') {
    // Cursors are base64url JSON: forged ones of every shape, and another list's.
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const v of [{ v: 1, k: 'zzz' }, { v: 1, k: -1 }, { v: 1, k: 1e308 }, { v: 1, k: { $gt: '' } }, { v: 2, k: 'a' }, null, [], 'text']) {
      values.push({ label: `forged cursor ${JSON.stringify(v)}`, raw: [forged(v)], always: true });
    }
    values.push({ label: 'not base64', raw: ['!!!'], invalid: true });
  } else if (base.type === 'boolean') {
    values.push({ label: 'not a boolean', raw: ['yes'], invalid: true });
  } else {
    values.push({ label: 'long', raw: ['q'.repeat(4000)], invalid: base.maxLength !== undefined && base.maxLength < 4000 ? true : undefined });
    for (const u of unicodeStrings.slice(0, 4)) values.push({ label: `unicode ${JSON.stringify(u.slice(0, 8))}`, raw: [u], invalid: base.format || base.enum ? true : undefined });
    for (const c of controlStrings.slice(0, 3)) values.push({ label: `control ${JSON.stringify(c)}`, raw: [c], invalid: base.format || base.enum ? true : undefined });
    values.push({ label: 'path traversal', raw: ['../../../../etc/passwd'], invalid: base.format || base.enum ? true : undefined });
    values.push({ label: 'empty', raw: [''], invalid: (base.minLength ?? 0) > 0 || base.format || base.enum ? true : undefined });
    if (base.format) values.push({ label: `bad ${base.format}`, raw: [`not-a-${base.format}`], invalid: true });
    if (base.format === 'date-time') for (const d of edgeDateTimes) values.push({ label: `date-time ${d}`, raw: [d], always: true });
    if (base.enum) values.push({ label: 'not in enum', raw: ['NOT_A_VALUE'], invalid: true });
  }
  return values;
}

export interface CaseBudget {
  path: number;
  query: number;
  body: number;
  raw: number;
}

/**
 * The cases of one operation. `hint` names existing records for path parameters and body fields.
 * Operations without a JSON body act on their path alone, so their junk-body cases name records
 * that do not exist: the fuzzer must not delete or revoke the fixtures by accident.
 */
export function casesFor(op: Operation, hint: Hint, rng: Rng, budget: CaseBudget): FuzzCase[] {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const existing = (name: string) => hint(name) as string | undefined;
  const validPath = (override: Record<string, string> = {}, fresh = false) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? (fresh ? randomUUID() : enc(existing(name) ?? randomUUID())));
  const validQuery: Record<string, string> = {};
  for (const q of queryParams.filter((p) => p.required)) validQuery[q.name] = String(exampleOf(q.schema, q.name, hint));
  const withQuery = (path: string, query: Record<string, string | string[]> = validQuery) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) for (const one of [v].flat()) search.append(k, one);
    const text = search.toString();
    return text ? `${path}?${text}` : path;
  };
  const example = op.jsonBody ? exampleOf(op.jsonBody, 'body', hint) : undefined;
  const exampleText = example === undefined ? undefined : JSON.stringify(example);
  const json = exampleText === undefined ? {} : { body: exampleText, contentType: 'application/json' };
  const cases: FuzzCase[] = [];
  const pick = <C extends { always?: boolean }>(list: C[], n: number) => [...list.filter((c) => c.always), ...rng.sample(list.filter((c) => !c.always), n)];
  const add = (c: Omit<FuzzCase, 'op' | 'caller'>, caller: Caller = rng.next() < 0.25 ? 'token' : 'admin') => cases.push({ op, caller, ...c });

  const pathCases: Omit<FuzzCase, 'op' | 'caller'>[] = [];
  for (const p of pathParams) {
    const isUuid = p.schema.format === 'uuid';
    for (const v of pathValues(existing(p.name), isUuid)) {
      pathCases.push({ label: `path ${p.name}: ${v.label}`, url: withQuery(validPath({ [p.name]: v.raw })), ...json, expect: v.invalid ? [400] : undefined });
    }
  }
  pick(pathCases, budget.path).forEach((c) => add(c));

  const queryCases: Omit<FuzzCase, 'op' | 'caller'>[] = [];
  for (const q of queryParams) {
    for (const v of queryValues(q.name, q.schema)) {
      queryCases.push({
        label: `query ${q.name}: ${v.label}`, url: withQuery(validPath(), { ...validQuery, [q.name]: v.raw }), ...json, expect: v.invalid ? [400] : undefined, always: v.always,
      });
    }
    if (q.required) {
      const rest = { ...validQuery };
      delete rest[q.name];
      queryCases.push({ label: `query ${q.name}: missing`, url: withQuery(validPath(), rest), ...json, expect: [400] });
    }
  }
  if (queryParams.length > 0) queryCases.push({ label: 'query: unknown parameter', url: withQuery(validPath(), { ...validQuery, fuzzExtra: '1' }), ...json, expect: [400] });
  pick(queryCases, budget.query).forEach((c) => add(c));

  if (op.jsonBody) {
    const body = bodyCases(op.jsonBody, example).map((c) => ({
      label: `body ${c.label}`, url: withQuery(validPath()), body: JSON.stringify(c.body), contentType: 'application/json', always: c.always,
      // A sign-in looks a name up and stores none: a control character there is just a wrong name.
      expect: c.invalid || (c.controlInName && op.path !== '/auth/login') ? [400] : undefined,
    }));
    pick(body, budget.body).forEach((c) => add(c));
    rng.sample(rawJsonCases(example), budget.raw).forEach((r) => add({
      label: `raw ${r.label}`, url: withQuery(validPath()), body: r.raw, contentType: r.contentType ?? 'application/json', expect: r.status ? [r.status] : undefined,
    }));
  } else if (op.rawBody) {
    const url = withQuery(validPath());
    add({ label: 'upload: JSON instead of bytes', url, body: '{"a":1}', contentType: 'application/json', expect: [400] });
    add({ label: 'upload: no content type', url, body: Buffer.from('bytes'), contentType: '', expect: [400] });
    add({ label: 'upload: empty', url, body: Buffer.alloc(0), contentType: op.rawBody });
    add({ label: 'upload: garbage bytes', url, body: Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rng.next() * 256))), contentType: op.rawBody });
    add({ label: 'upload: huge text', url, body: hugeString, contentType: op.rawBody });
  } else {
    // No body is read: whatever comes must be ignored or refused, never break the route.
    const url = withQuery(validPath({}, true));
    add({ label: 'junk JSON body', url, body: '{"fuzzExtra":1}', contentType: 'application/json' });
    add({ label: 'malformed JSON body', url, body: '{"a":', contentType: 'application/json' });
    add({ label: 'text body', url, body: 'hello', contentType: 'text/plain' });
  }

  // Node's parser stops a request line past 16 KiB before any route sees it.
  add({ label: 'URL of 100 KB', url: `${validPath({}, true)}?fuzz=${hugeString}`, expect: [431] });
  if (op.jsonBody || queryParams.length > 0) add({ label: 'the valid example', url: withQuery(validPath()), ...json });

  const anonymousUrl = withQuery(validPath());
  for (const caller of ['anonymous', 'bad-token', 'bad-cookie', 'odd-headers'] as const) {
    add({ label: `as ${caller}`, url: anonymousUrl, ...json, expect: op.isPublic ? undefined : [401] }, caller);
  }
  return cases;
}

/** For each path, a method it does not have: 405 `method_not_allowed`, whatever the path's parameters hold. */
export function otherMethodCases(ops: Operation[]): FuzzCase[] {
  const byPath = new Map<string, Set<string>>();
  for (const op of ops) byPath.set(op.path, (byPath.get(op.path) ?? new Set()).add(op.method));
  return [...byPath].flatMap(([path, methods]) => {
    const method = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !methods.has(m));
    if (!method) return [];
    const op: Operation = { method, path, parameters: [], isPublic: false };
    return [{ op, caller: 'admin' as const, label: 'method not allowed', url: path.replace(/\{\w+\}/g, () => randomUUID()), expect: [405] }];
  });
}
