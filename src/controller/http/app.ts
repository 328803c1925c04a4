import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../../shared/logger.js';
import type { Services } from '../services/index.js';
import { Authenticator } from './authenticate.js';
import type { Metrics } from '../metrics/registry.js';
import { checkReadiness, type ReadinessProbes } from './readiness.js';
import { mountRoute } from './mount.js';
import { RouteTable } from './route-table.js';
import type { HttpDrain } from './drain.js';
import { buildOpenApi } from './openapi.js';
import { frontMiddleware, jsonLimitBytes } from './front.js';
import type { AnyRoute } from './route.js';
import { UploadGate } from './upload-gate.js';
import { webUi } from './web-ui.js';
import { metricsGuard, strictTransportSecurity } from './metrics-guard.js';
import { TrustedProxies } from './client-address.js';
import { internalPeerEndpoint } from './internal-peer.js';

export interface HttpAppOptions {
  services: Services;
  routes: AnyRoute[];
  metrics: Metrics;
  logger: Logger;
  version: string;
  checkResponses: boolean;
  /** The built web UI, served at `/`. */
  webDir: string;
  readiness: ReadinessProbes;
  /** Tests shorten the silence and the wait. */
  uploads?: Partial<UploadSettings>;
  /** Follows every request so a shutdown can let them finish. */
  drain: HttpDrain;
  /** `--metrics-token`: `/metrics` then needs it as a bearer token. */
  metricsToken?: string;
  /** Served over TLS: every answer carries Strict-Transport-Security. */
  https?: boolean;
  /** `--trust-proxy`: whose X-Forwarded-For names the client (nobody's by default). */
  trustedProxies?: TrustedProxies;
}

/** Bodies streamed at once, how long one waits for a slot, and how long a client may go quiet mid-body. */
export interface UploadSettings {
  slots: number;
  /** Of those, how many one user may hold or wait for at once (so one user cannot starve the others). */
  perUser: number;
  waitMs: number;
  silenceMs: number;
}

/**
 * Eight uploads in flight hold about 32 MiB (a 1 MiB chunk on its way, one being gathered, and
 * buffers); a queued upload waits up to two minutes (fifty 8 MiB files at once get through on a
 * busy host); 30 s of silence is far beyond any live client's pause. One user holds at most two
 * of the eight: a third upload of theirs gets 429 at once, so other teams' uploads still find a slot.
 */
export const defaultUploadSettings: UploadSettings = { slots: 8, perUser: 2, waitMs: 120_000, silenceMs: 30_000 };

export function createHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  const { services, logger } = options;

  app.use(frontMiddleware({ drain: options.drain, metrics: options.metrics, logger }));
  if (options.https) {
    app.use(async (ctx, next) => {
      ctx.set('Strict-Transport-Security', strictTransportSecurity);
      await next();
    });
  }
  const metricsAllowed = metricsGuard(options.metricsToken);

  const ops = new Router();
  ops.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Probes come every few seconds: only a change of readiness is logged.
  let wasReady = true;
  ops.get('/readyz', async (ctx) => {
    const { report, cause } = await checkReadiness(options.readiness);
    const ready = report.status === 'ready';
    if (ready !== wasReady) {
      if (ready) logger.info({ event: 'ready' }, 'ready again: the store answers');
      else logger.warn({ event: 'unready', err: cause, detail: report.store.detail }, 'not ready: the store does not answer, or cannot write');
      wasReady = ready;
    }
    ctx.status = ready ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report;
  });
  ops.get('/metrics', async (ctx) => {
    if (!metricsAllowed(ctx)) return;
    ctx.type = options.metrics.registry.contentType;
    // An event-loop gauge before its first sample is NaN, which prom-client writes as `Nan` (no
    // parser reads that); a sample with no value yet is left out, as if not yet scraped.
    ctx.body = (await options.metrics.registry.metrics()).replace(/^[^#\n][^\n]* Nan\n/gm, '');
  });
  const api = new RouteTable();
  const openapi = buildOpenApi(options.routes, options.version);
  api.routerFor('/openapi.json').get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });

  const authenticator = new Authenticator(services.sessions, services.tokens);
  const settings = { ...defaultUploadSettings, ...options.uploads };
  const uploads = { gate: new UploadGate(settings.slots, settings.waitMs, settings.perUser), silenceMs: settings.silenceMs };
  const proxies = options.trustedProxies ?? new TrustedProxies([]);
  for (const route of options.routes) {
    mountRoute(api.routerFor(route.path), route, { authenticator, audit: services.audit, logger, checkResponses: options.checkResponses, jsonLimitBytes, uploads, countAuthFailure: options.metrics.countAuthFailure, proxies });
  }

  // Before the API: other Controllers' requests are no API route and carry no user's credentials.
  app.use(internalPeerEndpoint({ tokens: services.internalTokens, holder: services.holderSide, workflows: services.workflows, backups: services.backups.handoff, logger }));
  app.use(api.middleware(ops));
  app.use(webUi({ dir: options.webDir }));
  app.on('error', (error: NodeJS.ErrnoException) => {
    // A client that goes away mid-stream is normal for SSE and downloads.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' || error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    logger.error({ err: error }, 'http error');
  });
  return app;
}
