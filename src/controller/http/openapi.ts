import type { TSchema } from 'typebox';
import { cairnLicense } from '../../shared/version.js';
import { Problem } from '../schemas/common.js';
import { problemResponses, problemSchemaRef } from './openapi-problems.js';
import { problemCatalog, problemTypeBase } from './problem.js';
import type { AnyRoute } from './route.js';
import { shutdownReason } from './sse.js';
import { apiTags } from './api-tags.js';

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


/** Anything a route can answer beyond its listed problems: `internal` (500). */
const otherProblem = { description: 'Any other failure, such as `internal` (500).', content: { 'application/problem+json': { schema: { $ref: problemSchemaRef } } } };

/** package.json's license as OpenAPI wants it, with an SPDX identifier: `UNLICENSED` (no license granted) becomes a `LicenseRef-`. */
const licenseOf = (spdx: string) => (spdx === 'UNLICENSED' ? { name: 'Proprietary: no license is granted', identifier: 'LicenseRef-Proprietary' } : { name: spdx, identifier: spdx });

const dryRunNote = 'With `dryRun=true`: every check of the real call, with the same refusals, but nothing is stored, no Node is told and no audit event is written; '
  + 'the answer is 200 with what the real call would answer.';

/** A dry run's answer: 200 (nothing was created or accepted), in the real answer's shape. */
const dryRunSuccess = (r: AnyRoute): Json => ({
  description: 'A dry run (`dryRun=true`): what the real call would answer; nothing was changed.',
  ...(r.response ? { content: { 'application/json': { schema: r.response } } } : {}),
});

const streamEnd = `When the Controller shuts down, the stream ends with \`event: end\` and \`data: {"reason": "${shutdownReason}"}\`.`;

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
      responses: { ...(r.dryRun ? { 200: dryRunSuccess(r) } : {}), [String(r.status)]: success, ...problemResponses(r), default: otherProblem },
      security: (r.auth ?? 'user') === 'public' ? [] : [{ sessionCookie: [] }, { apiToken: [] }],
    };
    const notes = [r.description, r.stream === 'text/event-stream' ? streamEnd : undefined, r.audit ? `Audited as \`${r.audit.action}\`${r.dryRun ? ' (a dry run is not)' : ''}.` : undefined, r.dryRun ? dryRunNote : undefined];
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
      license: licenseOf(cairnLicense),
      description: [
        'Every error is an RFC 9457 `application/problem+json` body with a stable `code`. Codes, statuses and titles:',
        '',
        ...Object.entries(problemCatalog).map(([code, p]) => `- \`${code}\` (${p.status}, type \`${problemTypeBase}${code}\`): ${p.title}`),
        '',
        'Lists are `{items, nextCursor?}`: pass `nextCursor` back as `cursor` (at most 200 characters); `limit` is 1 to 200, default 50.',
        'Rate limits: POST /setup allows 5 wrong codes per client address in 15 minutes; POST /auth/login allows, in 15 minutes, 5 failures per account and client address together, 20 per client address, and 100 per account from all addresses. Past that: 429 `too_many_attempts` with `Retry-After` in seconds.',
        'Sessions last at most 7 days and end after 12 hours without a request.',
      ].join('\n'),
    },
    servers: [{ url: '/', description: 'The Controller that serves this document.' }],
    tags: Object.entries(apiTags).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: { Problem },
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: '__Host-cairn_session' },
        apiToken: { type: 'http', scheme: 'bearer', description: 'A personal API token, `cairn_pat_…`.' },
      },
    },
  };
}
