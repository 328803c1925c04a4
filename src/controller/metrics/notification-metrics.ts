import { Counter, Gauge, type Registry } from 'prom-client';
import type { WebhookOutbox } from '../services/notifications/webhook-outbox.js';

/**
 * `cairn_webhook_deliveries_total{state}`: deliveries that ended DELIVERED or FAILED (both series
 * from the start at 0); `cairn_webhook_deliveries_pending`: those waiting in this Controller.
 */
export function registerNotificationMetrics(registry: Registry, outbox: WebhookOutbox): void {
  const ended = new Counter({ name: 'cairn_webhook_deliveries_total', help: 'Webhook deliveries that ended, by state (DELIVERED, FAILED).', labelNames: ['state'] as const, registers: [registry] });
  for (const state of ['DELIVERED', 'FAILED']) ended.inc({ state }, 0);
  outbox.finished.add((state) => ended.inc({ state }));
  new Gauge({
    name: 'cairn_webhook_deliveries_pending', help: 'Webhook deliveries waiting for a try or a retry in this Controller.', registers: [registry],
    collect() {
      this.set(outbox.pending);
    },
  });
}
