import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateWebhook, UpdateWebhook, Webhook, WebhookDelivery } from '../../schemas/webhooks.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const webhook = recordRoutes({ tag: 'webhooks', kind: 'webhook', path: '/webhooks', id: 'webhookId' });
const manage = 'A team\'s webhook (`teamId`) is managed with `servers.update` in that team and hears only its servers\' events; a fleet-wide one (no `teamId`) by global administrators, hearing every event.';

export const webhookRoutes = (s: Services) => {
  // Looked up when a request comes: routes are declared without touching a service.
  const w = () => s.notifications.webhooks;
  return [
    webhook.list(w, { summary: 'The webhooks you may manage, in creation order.', description: manage, item: Webhook }),
    webhook.create(w, {
      summary: 'Add a webhook: each event it names is POSTed to `url` (format `json`, `discord` or `slack`).',
      description: `${manage} \`url\` must be http or https and, unless the Controller runs with --allow-private-webhooks, resolve to public addresses only (checked again at every try); redirects are not followed. \`node.*\` events are for fleet-wide webhooks. The secret signs each delivery (\`Cairn-Signature\`), is kept encrypted and is never returned, logged or audited.`,
      body: CreateWebhook, response: Webhook,
    }),
    webhook.get(w, { summary: 'One webhook (never its secret).', description: manage, response: Webhook }),
    webhook.update(w, {
      summary: 'Change a webhook: any field; `secret: null` sends unsigned from now on.',
      description: `${manage} Deliveries still PENDING are sent as the webhook is at each try (its URL, format and secret).`,
      body: UpdateWebhook, response: Webhook,
    }),
    webhook.delete(w, { summary: 'Remove a webhook and its deliveries; those still PENDING are not sent.', description: manage }),
    route({
      method: 'POST', path: '/webhooks/{webhookId}/test', tag: 'webhooks', status: 202,
      summary: 'Send test: a `webhook.test` delivery, answered before its first try.',
      description: `${manage} It is delivered and retried like any other; follow it in the webhook's deliveries.`,
      params: IdParams('webhookId'), response: WebhookDelivery,
      audit: { action: 'webhook.test', targetKind: 'webhook' },
      handler: async ({ caller, params, audit }) => w().test(caller, params.webhookId, audit),
    }),
    route({
      method: 'GET', path: '/webhooks/{webhookId}/deliveries', tag: 'webhooks', status: 200,
      summary: 'The webhook\'s deliveries, newest first: state, tries, the last answer or error (every PENDING one, and the last 100 that ended).',
      description: `${manage} A try waits at most 10 s; 2xx delivers; 429 waits its Retry-After; other answers and network errors retry after 1 s, 5 s, 30 s, 2 min and 10 min, then the delivery is FAILED. \`Cairn-Delivery\` is the delivery's id, the same on every try.`,
      params: IdParams('webhookId'), query: PageQuery, response: Paged(WebhookDelivery),
      handler: async ({ caller, params, query }) => w().deliveries(caller, params.webhookId, query),
    }),
  ];
};
