import type { Metric, Registry } from 'prom-client';

interface Labels {
  method: string;
  route: string;
  status: string;
}

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Requests per bucket (not cumulative), by the index of its upper bound. */
  perBucket: number[];
}

const requestsName = 'cairn_http_requests_total';
const latencyName = 'cairn_http_request_duration_seconds';

/**
 * `cairn_http_requests_total` and `cairn_http_request_duration_seconds`, counted with three map
 * lookups a request (see `byRoute`). prom-client's Counter and Histogram would build, check and hash the label
 * set twice a request; these series hand prom-client's registry their values in the very form
 * its Counter and Histogram do, when scraped (the registry reads any metric that answers `get()`).
 */
export class HttpRequestMetrics {
  private readonly series: Series[] = [];
  /**
   * The same series by route, method and status: three lookups of strings whose hashes are known
   * (route templates and method names are the same string objects each request) cost less than
   * building and hashing a key string a request.
   */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();

  constructor(registry: Registry, private readonly bounds: readonly number[]) {
    const requests = {
      name: requestsName, help: 'HTTP requests by route template, method and status.', type: 'counter', aggregator: 'sum',
      get: () => ({ ...requests, values: this.series.map((s) => ({ value: s.count, labels: s.labels })) }),
      reset: () => this.reset(),
    };
    const latency = {
      name: latencyName, help: 'HTTP request latency by route template, method and status.', type: 'histogram', aggregator: 'sum',
      get: () => ({ ...latency, values: this.series.flatMap((s) => this.histogramValues(s)) }),
      reset: () => this.reset(),
    };
    registry.registerMetric(requests as unknown as Metric);
    registry.registerMetric(latency as unknown as Metric);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byStatus = this.byRoute.get(route)?.get(method);
    if (!byStatus) {
      const byMethod = this.byRoute.get(route) ?? new Map<string, Map<number, Series>>();
      this.byRoute.set(route, byMethod);
      byMethod.set(method, (byStatus = new Map<number, Series>()));
    }
    let series = byStatus.get(status);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: this.bounds.map(() => 0) };
      byStatus.set(status, series);
      this.series.push(series);
    }
    series.count += 1;
    series.sum += seconds;
    for (let i = 0; i < this.bounds.length; i++) {
      if (seconds <= this.bounds[i]) {
        series.perBucket[i] += 1;
        return;
      }
    }
  }

  private reset(): void {
    this.series.length = 0;
    this.byRoute.clear();
  }

  /** As prom-client's Histogram exports a series: cumulative buckets, `+Inf`, sum and count. */
  private histogramValues(s: Series) {
    let cumulative = 0;
    const buckets = this.bounds.map((bound, i) => {
      cumulative += s.perBucket[i];
      return { labels: { le: bound }, sharedLabels: s.labels, value: cumulative, metricName: `${latencyName}_bucket`, exemplar: null };
    });
    return [
      ...buckets,
      { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${latencyName}_bucket`, exemplar: null },
      { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${latencyName}_sum` },
      { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${latencyName}_count` },
    ];
  }
}
