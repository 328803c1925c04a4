import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Logger } from '../../shared/logger.js';
import type { Services } from '../services/index.js';
import { Authenticator } from './authenticate.js';
import type { Metrics } from './metrics.js';
import { mountRoute } from './mount.js';
import type { HttpDrain } from './drain.js';
import { buildOpenApi } from './openapi.js';
import { DomainError } from '../core/errors.js';
import { problemBody, statusOf, toDomainError } from './problem.js';
import type { AnyRoute } from './route.js';
import { webUi } from './web-ui.js';

export interface HttpAppOptions {
  services: Services;
  routes: AnyRoute[];
  metrics: Metrics;
  logger: Logger;
  version: string;
  checkResponses: boolean;
  /** The built web UI, served at `/`. */
  webDir: string;
  ready(): Promise<void>;
  /** Follows every request so a shutdown can let them finish. */
  drain: HttpDrain;
}

/** JSON bodies above this are refused with 413; file and jar uploads stream with their own limits. */
export const jsonLimitBytes = 1024 * 1024;

function sendProblem(ctx: Context, error: DomainError): void {
  ctx.status = statusOf(error);
  ctx.set(error.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problemBody(error);
}

export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  const { services, logger } = options;

  app.use(options.drain.middleware);
  app.use(options.metrics.middleware);
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 405 && ctx.body == null) throw new DomainError('method_not_allowed', `${ctx.method} is not allowed here; see the Allow header.`);
      if (ctx.status === 404 && ctx.body == null) throw new DomainError('not_found', `No such path: ${ctx.path}`);
      if (ctx.status === 501 && ctx.body == null) throw new DomainError('method_not_allowed', `${ctx.method} is not supported.`);
    } catch (error) {
      const problem = toDomainError(error, jsonLimitBytes);
      if (problem) return sendProblem(ctx, problem);
      logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
      sendProblem(ctx, new DomainError('internal'));
    }
  });

  const ops = new Router();
  ops.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  ops.get('/readyz', async (ctx) => {
    try {
      await options.ready();
    } catch (error) {
      logger.warn({ err: error }, 'not ready');
      throw new DomainError('not_ready');
    }
    ctx.body = { status: 'ready' };
  });
  ops.get('/metrics', async (ctx) => {
    ctx.type = options.metrics.registry.contentType;
    ctx.body = await options.metrics.registry.metrics();
  });
  const openapi = buildOpenApi(options.routes, options.version);
  ops.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = openapi;
  });

  const api = new Router({ prefix: '/api/v1' });
  const authenticator = new Authenticator(services.sessions, services.tokens);
  for (const route of options.routes) {
    mountRoute(api, route, { authenticator, audit: services.audit, logger, checkResponses: options.checkResponses, jsonLimitBytes });
  }

  app.use(ops.routes()).use(ops.allowedMethods());
  app.use(api.routes()).use(api.allowedMethods());
  app.use(webUi({ dir: options.webDir }));
  app.on('error', (error: NodeJS.ErrnoException) => {
    // A client that goes away mid-stream is normal for SSE and downloads.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    logger.error({ err: error }, 'http error');
  });
  return app;
}
