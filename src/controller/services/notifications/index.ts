import type { Access } from '../identity/access.js';
import type { ServiceDeps } from '../deps.js';
import { NotificationSources, type EventFeeds } from './event-sources.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhookService } from './webhooks.js';

export interface NotificationDeps {
  deps: ServiceDeps;
  access: Access;
  feeds: EventFeeds;
  /** `--allow-private-webhooks`: loopback, link-local and private addresses allowed. */
  allowPrivate: boolean;
}

/** Webhooks: their records, the outbox that delivers to them, and the event flow it hears. */
export function createNotificationServices(d: NotificationDeps) {
  const sender = new WebhookSender(d.allowPrivate);
  const outbox = new WebhookOutbox(d.deps, sender);
  const sources = new NotificationSources(d.deps, d.feeds, outbox);
  return {
    webhooks: new WebhookService(d.deps, d.access, outbox, d.allowPrivate),
    outbox,
    /** Listening before the Agents connect, then the deliveries left PENDING by the last run tried again. */
    async start(): Promise<void> {
      await sources.start();
      await outbox.resume();
    },
    async stop(): Promise<void> {
      sources.stop();
      outbox.stop();
      await sender.close();
    },
  };
}
