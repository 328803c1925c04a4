import type { Middleware } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per Controller (so several can live in one test process). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cairn_controller_' });
  const requests = new Counter({
    name: 'cairn_http_requests_total',
    help: 'HTTP requests by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  /** Labels use the matched route template, never the raw path, so ids do not explode the series. */
  const middleware: Middleware = async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = {
        route: (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        method: ctx.method,
        status: String(ctx.status),
      };
      requests.inc(labels);
      latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };

  return { registry, middleware };
}

export type Metrics = ReturnType<typeof createMetrics>;
