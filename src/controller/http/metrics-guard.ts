import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { DomainError } from '../core/errors.js';
import { problemBody, statusOf } from './problem.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `--metrics-token`: `/metrics` answers only `Authorization: Bearer <token>`. A scrape costs real
 * CPU on a large fleet and names the fleet's shape, so it is not for anyone who finds the port.
 * Only the token's digest is kept, and digests are compared in constant time.
 */
export function metricsGuard(token: string | undefined): (ctx: Context) => boolean {
  if (token === undefined) return () => true;
  const expected = digest(token);
  return (ctx) => {
    const presented = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return true;
    const refusal = new DomainError('unauthenticated', '/metrics needs Authorization: Bearer with the Controller\'s --metrics-token.');
    ctx.status = statusOf(refusal);
    ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
    ctx.type = 'application/problem+json';
    ctx.body = problemBody(refusal);
    return false;
  };
}

/** Served over HTTPS, browsers are told to come back only that way for a year. */
export const strictTransportSecurity = 'max-age=31536000';
