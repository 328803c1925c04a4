import { randomUUID } from 'node:crypto';

/**
 * Bad inputs made from the JSON Schemas of the OpenAPI document: a valid example of each schema,
 * then one change at a time (a wrong type, a bound crossed, a huge, unicode or control-character
 * string, a required field missing, an unknown one added). Each change says whether the schema
 * itself forbids it (`invalid`): the API must then refuse it, whatever else it does.
 */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  items?: Schema;
  uniqueItems?: boolean;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  default?: unknown;
}

/** A small seeded PRNG (mulberry32): the same seed, the same cases. */
export class Rng {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** Up to `n` of `items`, in their original order. */
  sample<T>(items: readonly T[], n: number): T[] {
    if (items.length <= n) return [...items];
    const keyed = items.map((item, i) => ({ item, i, key: this.next() }));
    return keyed.sort((a, b) => a.key - b.key).slice(0, n).sort((a, b) => a.i - b.i).map((k) => k.item);
  }
}

export const hugeString = 'x'.repeat(100 * 1024);
export const unicodeStrings = [
  '🎮🔥 emoji 👩‍👩‍👧', 'שלום עולם RTL \u202Eevil', 'e\u0301\u0301\u0301 combining z\u0336\u0337', '漢字かな交じり', '\uFEFFbom\u200Bzero-width', 'lone \uD800 surrogate',
];
/** Texts JSON Schema's date-time accepts that are no instant JavaScript can name (a leap second), or edge ones. */
export const edgeDateTimes = ['2016-12-31T23:59:60Z', '1990-12-31T15:59:60-08:00', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59+14:00', '2024-01-01 00:00:00z', '1970-01-01T00:00:00.123456789Z'];
export const controlStrings = ['nul\u0000byte', 'line\nbreak', 'esc\u001b[31mred', 'del\u007f', 'tab\tand\rreturn'];

/** Strings tried, in order, for a field with a pattern or bounds: the first that fits is its example. */
const candidates = ['fuzz', 'simcraft', 'example.com', 'a', '1', 'fuzz-1', 'Fuzz Name'];

/** A value for a field by its name (an existing record's id, a known template), or undefined for a made-up one. */
export type Hint = (field: string) => unknown;

const fits = (s: Schema, value: string) =>
  value.length >= (s.minLength ?? 0) && value.length <= (s.maxLength ?? Infinity) && (!s.pattern || new RegExp(s.pattern, 'u').test(value));

/** Whether the schema refuses a string: its bounds, pattern and enum; none of the strings tried here is a uuid, email or date-time. */
const refuses = (s: Schema, value: string) => !fits(s, value) || s.format !== undefined || (s.enum !== undefined && !s.enum.includes(value));

export function exampleOf(schema: Schema, field: string, hint: Hint): unknown {
  const hinted = hint(field);
  if (hinted !== undefined) return hinted;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return exampleOf(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0], field, hint);
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = schema.properties ?? {};
      const keys = schema.required ?? [];
      for (const key of keys) out[key] = exampleOf(props[key], key, hint);
      if (Object.keys(out).length < (schema.minProperties ?? 0)) {
        const [key, s] = Object.entries(props)[0] ?? ['motd', Object.values(schema.patternProperties ?? {})[0] ?? { type: 'string' }];
        out[key] = exampleOf(s, key, hint);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => exampleOf(schema.items ?? {}, field, hint));
    case 'integer':
    case 'number':
      return Math.min(Math.max(schema.minimum ?? 1, 1), schema.maximum ?? Infinity);
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'email') return 'fuzz@example.com';
      if (schema.format === 'date-time') return new Date().toISOString();
      return candidates.find((c) => fits(schema, c)) ?? 'a'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return 'fuzz';
  }
}

export interface ValueChange {
  label: string;
  value: unknown;
  /** The schema forbids it. */
  invalid: boolean;
  /** Kept whatever the budget: a value that once broke the API. */
  always?: boolean;
}

const typeOf = (s: Schema): string | undefined => s.type ?? (s.anyOf ? 'anyOf' : undefined);

const wrongTypes: Record<string, unknown[]> = {
  string: [123, true, null, [], {}],
  integer: ['1', 1.5, true, null, []],
  number: ['1', true, null, {}],
  boolean: ['true', 0, null],
  object: ['x', [], 1, null],
  array: [{}, 'x', 1, null],
};

/** Changes of one value whose schema is `s`; `anyOf` values get the changes no branch allows. */
export function valueChanges(s: Schema): ValueChange[] {
  const out: ValueChange[] = [];
  const type = typeOf(s);
  const nullable = s.anyOf?.some((b) => b.type === 'null') ?? false;
  const base = s.anyOf?.find((b) => b.type !== 'null') ?? s;
  for (const value of wrongTypes[base.type ?? ''] ?? []) {
    if (value === null && nullable) continue;
    out.push({ label: `wrong type ${JSON.stringify(value)}`, value, invalid: true });
  }
  if (base.type === 'string' || (type === undefined && base.enum)) {
    if (base.minLength) out.push({ label: 'too short', value: 'a'.repeat(base.minLength - 1), invalid: true });
    if (base.maxLength !== undefined && base.maxLength < hugeString.length) out.push({ label: 'too long', value: 'a'.repeat(base.maxLength + 1), invalid: true });
    out.push({ label: 'huge string', value: hugeString, invalid: refuses(base, hugeString) });
    for (const u of unicodeStrings) out.push({ label: `unicode ${JSON.stringify(u.slice(0, 12))}`, value: u, invalid: refuses(base, u) });
    for (const c of controlStrings) out.push({ label: `control ${JSON.stringify(c)}`, value: c, invalid: refuses(base, c) });
    if (base.format) out.push({ label: `bad ${base.format}`, value: 'not-a-' + base.format, invalid: true });
    if (base.format === 'uuid') out.push({ label: 'nil uuid', value: '00000000-0000-0000-0000-000000000000', invalid: false });
    if (base.format === 'date-time') for (const d of edgeDateTimes) out.push({ label: `date-time ${d}`, value: d, invalid: false, always: true });
    if (base.maxLength !== undefined && base.maxLength < hugeString.length && !base.format && !base.pattern) {
      out.push({ label: 'longest', value: 'a'.repeat(base.maxLength), invalid: false });
    }
  }
  if (base.enum) out.push({ label: 'not in enum', value: 'NOT_A_VALUE', invalid: true });
  if (base.type === 'integer' || base.type === 'number') {
    if (base.minimum !== undefined) out.push({ label: 'below minimum', value: base.minimum - 1, invalid: true });
    if (base.maximum !== undefined && Number.isSafeInteger(base.maximum + 1)) out.push({ label: 'above maximum', value: base.maximum + 1, invalid: true });
    if (base.maximum !== undefined) out.push({ label: 'maximum', value: base.maximum, invalid: false });
    if (base.minimum !== undefined) out.push({ label: 'minimum', value: base.minimum, invalid: false });
    if (base.type === 'integer') out.push({ label: 'fraction', value: 1.5, invalid: true });
    out.push({ label: 'huge number', value: 1e308, invalid: base.maximum !== undefined || base.type === 'integer' });
    out.push({ label: 'negative', value: -1, invalid: base.minimum !== undefined && base.minimum > -1 });
  }
  if (base.type === 'array') {
    if (base.uniqueItems && base.items?.enum) out.push({ label: 'duplicate items', value: [base.items.enum[0], base.items.enum[0]], invalid: true });
    out.push({ label: 'bad item', value: [{ nested: true }], invalid: base.items?.type !== 'object' });
    out.push({ label: 'many items', value: Array.from({ length: 10_000 }, (_, i) => String(i)), invalid: true });
  }
  return out;
}

export interface BodyCase {
  label: string;
  body: unknown;
  invalid: boolean;
  always?: boolean;
  /** A control character went into a field that names something; names refuse them. */
  controlInName: boolean;
}

const nameFields = new Set(['name', 'displayName', 'username']);

/** The example body with one change at a time: each field of the top level and of nested objects, missing and extra fields. */
export function bodyCases(schema: Schema, example: unknown): BodyCase[] {
  const cases: BodyCase[] = [];
  const walk = (s: Schema, value: Record<string, unknown>, path: string[], set: (v: unknown) => unknown) => {
    const props = s.properties ?? {};
    for (const [key, prop] of Object.entries(props)) {
      const here = [...path, key].join('.');
      for (const change of valueChanges(prop)) {
        const controlInName = nameFields.has(key) && change.label.startsWith('control');
        cases.push({
          label: `${here}: ${change.label}`, body: set({ ...value, [key]: change.value }), invalid: change.invalid,
          controlInName, always: change.always || controlInName,
        });
      }
      const inner = value[key];
      if (prop.type === 'object' && prop.properties && inner && typeof inner === 'object') {
        walk(prop, inner as Record<string, unknown>, [...path, key], (v) => set({ ...value, [key]: v }));
      }
    }
    for (const key of s.required ?? []) {
      const rest = { ...value };
      delete rest[key];
      cases.push({ label: `${[...path, key].join('.')}: missing`, body: set(rest), invalid: true, controlInName: false });
    }
    if (s.additionalProperties === false) {
      cases.push({ label: `${path.join('.') || 'body'}: extra field`, body: set({ ...value, fuzzExtra: 1 }), invalid: true, controlInName: false });
    }
    if (s.patternProperties) {
      for (const key of ['', '__proto__', 'constructor', 'k'.repeat(300), 'a\u0000b', 'a=b', 'a:b', '#comment', ' spaced ', 'ключ', '🎮']) {
        cases.push({ label: `key ${JSON.stringify(key.slice(0, 12))}`, body: set({ [key]: 'v' }), invalid: false, controlInName: false });
      }
      for (const change of valueChanges(Object.values(s.patternProperties)[0])) {
        cases.push({ label: `value: ${change.label}`, body: set({ motd: change.value }), invalid: change.invalid, controlInName: false });
      }
      cases.push({ label: 'too many keys', body: set(Object.fromEntries(Array.from({ length: (s.maxProperties ?? 100) + 1 }, (_, i) => [`k${i}`, 'v']))), invalid: true, controlInName: false });
    }
    if (s.minProperties) cases.push({ label: `${path.join('.') || 'body'}: empty object`, body: set({}), invalid: true, controlInName: false });
  };
  if (example && typeof example === 'object' && !Array.isArray(example)) walk(schema, example as Record<string, unknown>, [], (v) => v);
  return cases;
}

/** Raw bodies no JSON schema accepts: `contentType` undefined means application/json. */
export interface RawCase {
  label: string;
  raw: string | Buffer;
  contentType?: string;
  /** The answer expected, where the bytes alone decide it. */
  status?: number;
}

/** The example with its first key given twice, a wrong value first (JSON.parse keeps the last). */
function duplicateKey(example: unknown): string {
  const text = JSON.stringify(example);
  const first = example && typeof example === 'object' ? Object.keys(example)[0] : undefined;
  return first === undefined ? '{"a":1,"a":2}' : `{${JSON.stringify(first)}:{"wrong":[]},${text.slice(1)}`;
}

export const rawJsonCases = (example: unknown): RawCase[] => [
  { label: 'malformed JSON', raw: '{"a":', status: 400 },
  { label: 'trailing garbage', raw: '{} x', status: 400 },
  { label: 'JSON null', raw: 'null', status: 400 },
  { label: 'JSON array', raw: '[]', status: 400 },
  { label: 'JSON string', raw: '"text"', status: 400 },
  { label: 'JSON number', raw: '42', status: 400 },
  { label: 'deep nesting', raw: '['.repeat(5000) + ']'.repeat(5000), status: 400 },
  { label: 'text/plain', raw: JSON.stringify(example), contentType: 'text/plain', status: 400 },
  { label: 'form-encoded', raw: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded', status: 400 },
  { label: 'multipart', raw: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n', contentType: 'multipart/form-data; boundary=x', status: 400 },
  { label: 'octet-stream', raw: Buffer.from([0, 1, 2, 255]), contentType: 'application/octet-stream', status: 400 },
  { label: 'over 1 MiB', raw: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }), status: 413 },
  { label: 'not UTF-8', raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
  { label: 'UTF-16 charset', raw: Buffer.from(JSON.stringify(example), 'utf16le'), contentType: 'application/json; charset=utf-16' },
  { label: 'unknown charset', raw: JSON.stringify(example), contentType: 'application/json; charset=klingon' },
  { label: 'duplicate key', raw: duplicateKey(example) },
];
