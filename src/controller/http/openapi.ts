import type { TSchema } from 'typebox';
import { Problem } from '../schemas/common.js';
import { problemCatalog, problemTypeBase } from './problem.js';
import type { AnyRoute } from './route.js';

type Json = Record<string, unknown>;

function parameters(schema: TSchema | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = schema as unknown as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: s,
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
  }));
}

const errorResponse = { description: 'An RFC 9457 problem.', content: { 'application/problem+json': { schema: Problem } } };

/** OpenAPI 3.1, generated from the same route definitions and schemas that validate requests. */
export function buildOpenApi(routes: AnyRoute[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const success: Json = { description: r.status === 204 ? 'No content.' : 'Success.' };
    if (r.response) success.content = { 'application/json': { schema: r.response } };
    if (r.stream) success.content = { [r.stream]: { schema: { type: 'string' } } };
    const operation: Json = {
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[{}]/g, '').replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      summary: r.summary,
      tags: [r.tag],
      parameters: [...parameters(r.params, 'path'), ...parameters(r.query, 'query')],
      responses: { [String(r.status)]: success, default: errorResponse },
      security: (r.auth ?? 'user') === 'public' ? [] : [{ sessionCookie: [] }, { apiToken: [] }],
    };
    const notes = [r.description, r.audit ? `Audited as \`${r.audit.action}\`.` : undefined, r.errors?.length ? `Error codes: ${r.errors.map((c) => `\`${c}\``).join(', ')}.` : undefined];
    const description = notes.filter(Boolean).join('\n\n');
    if (description) operation.description = description;
    if (r.body) operation.requestBody = { required: true, content: { 'application/json': { schema: r.body } } };
    if (r.rawBody) operation.requestBody = { required: true, content: { [r.rawBody.mediaType]: { schema: { type: 'string', format: 'binary', maxLength: r.rawBody.maxBytes } } } };
    (paths[`/api/v1${r.path}`] ??= {})[r.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cairn Controller API',
      version,
      description: [
        'Every error is an RFC 9457 `application/problem+json` body with a stable `code`. Codes, statuses and titles:',
        '',
        ...Object.entries(problemCatalog).map(([code, p]) => `- \`${code}\` (${p.status}, type \`${problemTypeBase}${code}\`): ${p.title}`),
        '',
        'Lists are `{items, nextCursor?}`: pass `nextCursor` back as `cursor` (at most 200 characters); `limit` is 1 to 200, default 50.',
        'Rate limits: POST /setup allows 5 wrong codes per client address in 15 minutes; POST /auth/login allows 5 failures per account and 20 per client address in 15 minutes. Past that: 429 `too_many_attempts` with `Retry-After` in seconds.',
        'Sessions last at most 7 days and end after 12 hours without a request.',
      ].join('\n'),
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: '__Host-cairn_session' },
        apiToken: { type: 'http', scheme: 'bearer', description: 'A personal API token, `cairn_pat_…`.' },
      },
    },
  };
}
