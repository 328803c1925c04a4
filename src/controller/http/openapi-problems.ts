import type { ErrorCode } from '../core/errors.js';
import { problemCatalog } from './problem.js';
import type { AnyRoute } from './route.js';

type Json = Record<string, unknown>;

/** Where the shared Problem schema sits in the document. */
export const problemSchemaRef = '#/components/schemas/Problem';

/**
 * The problems a route can answer: those its declaration implies, then the ones it names.
 * - signed in (`user`, `signed-in`): `unauthenticated`; `user` also `password_change_required`
 *   and `forbidden` (permissions);
 * - any method but GET: `forbidden` (a cookie request from a foreign Origin);
 * - path or query parameters, a body: `invalid_request`; path parameters: `not_found`;
 * - a body: `too_large` (JSON over 1 MiB, or a raw body over its limit);
 * - a raw body: `request_timeout` (the client went quiet) and `too_many_attempts` (no upload slot came free).
 */
export function problemCodes(r: AnyRoute): ErrorCode[] {
  const auth = r.auth ?? 'user';
  const implied: (ErrorCode | false)[] = [
    (r.params !== undefined || r.query !== undefined || r.body !== undefined || r.rawBody !== undefined) && 'invalid_request',
    auth !== 'public' && 'unauthenticated',
    auth === 'user' && 'password_change_required',
    (auth === 'user' || r.method !== 'GET') && 'forbidden',
    r.params !== undefined && 'not_found',
    (r.body !== undefined || r.rawBody !== undefined) && 'too_large',
    r.rawBody !== undefined && 'request_timeout',
    r.rawBody !== undefined && 'too_many_attempts',
  ];
  return [...new Set([...implied.filter((c): c is ErrorCode => c !== false), ...(r.errors ?? [])])];
}

/** One response per status the route's problems have, each listing its codes, all with the Problem schema. */
export function problemResponses(r: AnyRoute): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of problemCodes(r)) {
    const status = problemCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Json> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${problemCatalog[c].title}`).join(' '),
      content: { 'application/problem+json': { schema: { $ref: problemSchemaRef } } },
    };
  }
  return responses;
}
