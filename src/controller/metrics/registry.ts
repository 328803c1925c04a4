import type { Context } from 'koa';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { HttpRequestMetrics } from './request-metrics.js';

const defaultPrefix = 'cairn_controller_';

/**
 * prom-client's gauges that end in `_total`, which Prometheus reserves for counters (`promtool
 * check metrics` refuses them). Each is the sum of the gauge of the same name without `_total`
 * (by handle, request or resource type), so nothing is lost: `sum(cairn_controller_nodejs_active_handles)`.
 */
const gaugesNamedLikeCounters = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export const authFailureReasons = ['bad_password', 'unknown_user', 'throttled', 'missing_credentials', 'invalid_token', 'bad_setup_code', 'totp_required', 'bad_totp_code'] as const;
export type AuthFailureReason = typeof authFailureReasons[number];

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
  const http = new HttpRequestMetrics(registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);

  /** Counts a request once its status is final; labels use the matched route template, never the raw path, so ids do not explode the series. */
  const observe = (ctx: Context, started: number): void => {
    const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
    http.observe(ctx.method, route, ctx.status, (performance.now() - started) / 1000);
  };

  const authFailures = new Counter({
    name: 'cairn_auth_failures_total',
    help: 'Requests refused for want of valid credentials (401, and 429 on sign-in), by reason: bad_password (sign-in, known account), '
      + 'unknown_user (sign-in, no such account), throttled (sign-in refused by its rate limits, 429), missing_credentials (no cookie or '
      + 'bearer token), invalid_token (a session cookie or bearer token that is unknown, expired or malformed), bad_setup_code (first-run setup).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of authFailureReasons) authFailures.inc({ reason }, 0);
  const countAuthFailure = (reason: AuthFailureReason) => authFailures.inc({ reason });

  return { registry, observe, countAuthFailure };
}

export type Metrics = ReturnType<typeof createMetrics>;
