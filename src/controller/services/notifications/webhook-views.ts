import type { Static } from 'typebox';
import type { Webhook, WebhookDelivery } from '../../schemas/webhooks.js';
import type { WebhookDeliveryDoc, WebhookDoc } from '../../store/records.js';

/** A webhook as the API shows it: whether it signs, never its secret. */
export const webhookView = (doc: WebhookDoc): Static<typeof Webhook> => ({
  id: doc._id, name: doc.name, url: doc.url, format: doc.format, events: doc.events as Static<typeof Webhook>['events'],
  ...(doc.teamId !== undefined ? { teamId: doc.teamId } : {}), hasSecret: doc.secretSealed !== undefined, createdAt: doc.createdAt, updatedAt: doc.updatedAt,
});

/** A delivery as the list shows it: how it went, not what it carried. */
export const deliveryView = (doc: WebhookDeliveryDoc): Static<typeof WebhookDelivery> => ({
  id: doc._id, event: doc.event, createdAt: doc.createdAt, state: doc.state, attempts: doc.attempts,
  ...(doc.lastStatus !== undefined ? { lastStatus: doc.lastStatus } : {}), ...(doc.lastError !== undefined ? { lastError: doc.lastError } : {}),
});
