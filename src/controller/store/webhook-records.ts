import type { WebhookEventBody } from '../schemas/webhooks.js';

/** Where notifications of fleet events go: a team's (events of its servers) or fleet-wide (teamId absent). */
export interface WebhookDoc {
  _id: string;
  name: string;
  url: string;
  format: 'json' | 'discord' | 'slack';
  events: string[];
  teamId?: string;
  /** Signs each delivery; sealed (SecretBox, purpose `webhook:<webhookId>`), never returned. */
  secretSealed?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * One event to one webhook: the outbox. Stored before its first try, so a Controller stopped or
 * killed before it was delivered sends it at its next start (at-least-once).
 */
export interface WebhookDeliveryDoc {
  _id: string;
  webhookId: string;
  event: string;
  /** The body as the event was when it happened (the `json` shape); the webhook's format is applied at each try. */
  body: WebhookEventBody;
  state: 'PENDING' | 'DELIVERED' | 'FAILED';
  attempts: number;
  /** When the next try is due (PENDING only). */
  nextAttemptAt?: string;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
}
