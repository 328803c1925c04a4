import type { Context, Middleware } from 'koa';
import type { Logger } from '../../shared/logger.js';
import { DomainError } from '../core/errors.js';
import type { HttpDrain } from './drain.js';
import type { Metrics } from '../metrics/registry.js';
import { problemBody, statusOf, toDomainError } from './problem.js';

/** JSON bodies above this are refused with 413; file and jar uploads stream with their own limits. */
export const jsonLimitBytes = 1024 * 1024;

function sendProblem(ctx: Context, error: DomainError): void {
  ctx.status = statusOf(error);
  ctx.set(error.headers);
  // A refusal before the body was read (no credentials, no permission) must not cost reading it:
  // the connection closes after the answer instead of Node draining what the client still sends.
  if (!ctx.req.complete) ctx.set('Connection', 'close');
  ctx.type = 'application/problem+json';
  ctx.body = problemBody(error);
}

/** What a request nothing answered gets: the router's bare 404, 405 and 501 become problems. */
function unanswered(ctx: Context): DomainError | undefined {
  if (ctx.body != null) return undefined;
  if (ctx.status === 404) return new DomainError('not_found', `No such path: ${ctx.path}`);
  if (ctx.status === 405) return new DomainError('method_not_allowed', `${ctx.method} is not allowed here; see the Allow header.`);
  if (ctx.status === 501) return new DomainError('method_not_allowed', `${ctx.method} is not supported.`);
  return undefined;
}

/**
 * The app's first middleware, doing in one frame what every request needs around its route: the
 * drain follows it, any error becomes an RFC 9457 problem, and the request metrics count its final
 * status. One middleware rather than three: each layer cost a promise and a bound `next` a request.
 */
export function frontMiddleware(deps: { drain: HttpDrain; metrics: Metrics; logger: Logger }): Middleware {
  const { drain, metrics, logger } = deps;
  return async (ctx, next) => {
    const started = performance.now();
    drain.begin(ctx.res);
    try {
      await next();
      const problem = unanswered(ctx);
      if (problem) sendProblem(ctx, problem);
    } catch (error) {
      const problem = toDomainError(error, jsonLimitBytes);
      if (problem) sendProblem(ctx, problem);
      else {
        logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
        sendProblem(ctx, new DomainError('internal'));
      }
    } finally {
      metrics.observe(ctx, started);
      drain.handled(ctx);
    }
  };
}
