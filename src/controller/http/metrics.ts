import type { Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const defaultPrefix = 'cairn_controller_';

/**
 * prom-client's gauges that end in `_total`, which Prometheus reserves for counters (`promtool
 * check metrics` refuses them). Each is the sum of the gauge of the same name without `_total`
 * (by handle, request or resource type), so nothing is lost: `sum(cairn_controller_nodejs_active_handles)`.
 */
const gaugesNamedLikeCounters = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** One registry per Controller (so several can live in one test process). */
export function createMetrics(version: string) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: defaultPrefix });
  for (const name of gaugesNamedLikeCounters) registry.removeSingleMetric(defaultPrefix + name);
  new Gauge({
    name: 'cairn_build_info',
    help: 'Always 1; the version label says which Cairn build runs.',
    labelNames: ['version'] as const,
    registers: [registry],
  }).set({ version }, 1);
  const requests = new Counter({
    name: 'cairn_http_requests_total',
    help: 'HTTP requests by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
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
        method: ctx.method,
        route: (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
        status: String(ctx.status),
      };
      requests.inc(labels);
      latency.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };

  return { registry, middleware };
}

export type Metrics = ReturnType<typeof createMetrics>;
