import { Listeners } from '../../../shared/listeners.js';
import { deliveryBody } from '../../domain/webhooks/delivery-body.js';
import { nextStep, tryError } from '../../domain/webhooks/delivery-plan.js';
import { signatureHeader } from '../../domain/webhooks/signature.js';
import type { WebhookEventBody } from '../../schemas/webhooks.js';
import type { WebhookDeliveryDoc, WebhookDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { DeliveryQueue } from './delivery-queue.js';
import { pruneFinished } from './delivery-retention.js';
import type { WebhookSender } from './webhook-sender.js';

export const webhookSecretPurpose = (webhookId: string) => `webhook:${webhookId}`;

/** What happened, before it is addressed to webhooks: the body's fields but its id and time. */
export type NotificationEvent = Omit<WebhookEventBody, 'id' | 'occurredAt'> & { occurredAt?: string };

/** Whether a webhook hears an event: it asked for it, and a team's webhook only of its own servers (so never of Nodes). */
const hears = (hook: WebhookDoc, body: WebhookEventBody) =>
  hook.events.includes(body.event) && (hook.teamId === undefined || body.server?.teamId === hook.teamId);

/** Resumed PENDING deliveries are read this many at a time, so a long outbox never sits in memory whole. */
const resumePage = 500;

/**
 * The outbox: every event is stored as one delivery per webhook that hears it before its first
 * try, then tried on its webhook's own queue. A Controller stopped or killed with deliveries
 * PENDING tries them again at its next start, with the same `Cairn-Delivery` (at-least-once).
 * Sending is a fleet-wide job: every Controller stores the events it sees, but only the one
 * running the job (`resume`, until `stop`) tries deliveries, so none is tried twice at once. With
 * several Controllers it also looks for deliveries the others stored, every `pollMs`.
 */
export class WebhookOutbox {
  private readonly queues = new Map<string, DeliveryQueue>();
  private stopping = new AbortController();
  private sending = false;
  private poll?: NodeJS.Timeout;
  /** Every delivery that ended (DELIVERED or FAILED), for the metrics. */
  readonly finished = new Listeners<[WebhookDeliveryDoc['state']]>();

  constructor(private readonly deps: ServiceDeps, private readonly sender: WebhookSender, private readonly pollMs?: number) {}

  /** Stores the event for each webhook that hears it, then queues each delivery; answers the deliveries' ids. */
  async publish(event: NotificationEvent, only?: WebhookDoc): Promise<string[]> {
    const body: WebhookEventBody = { ...event, id: this.deps.ids.next(), occurredAt: event.occurredAt ?? nowIso(this.deps) };
    const hooks = only ? [only] : (await this.deps.repos.webhooks.find({ events: body.event })).filter((hook) => hears(hook, body));
    const ids: string[] = [];
    for (const hook of hooks) {
      const at = nowIso(this.deps);
      const delivery: WebhookDeliveryDoc = { _id: this.deps.ids.next(), webhookId: hook._id, event: body.event, body, state: 'PENDING', attempts: 0, nextAttemptAt: at, createdAt: at };
      await this.deps.repos.webhookDeliveries.insert(delivery);
      if (this.sending) this.queueOf(hook._id).add(delivery._id, Date.parse(at));
      ids.push(delivery._id);
    }
    return ids;
  }

  /** The job starts: every PENDING delivery back on its queue, due when it was due. */
  async resume(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    this.stopping = new AbortController();
    await this.takeUp();
    if (this.pollMs !== undefined) this.watch(this.pollMs);
  }

  /** Queues the PENDING deliveries not on a queue here yet (stored before the start, or by another Controller). */
  private async takeUp(): Promise<void> {
    let after = '';
    for (;;) {
      const page = await this.deps.repos.webhookDeliveries.find({ state: 'PENDING', _id: { $gt: after } }, { sort: { _id: 1 }, limit: resumePage });
      if (!this.sending) return;
      for (const d of page) if (!this.queues.get(d.webhookId)?.has(d._id)) this.queueOf(d.webhookId).add(d._id, Date.parse(d.nextAttemptAt ?? d.createdAt));
      if (page.length < resumePage) return;
      after = page[page.length - 1]._id;
    }
  }

  private watch(everyMs: number): void {
    this.poll = setTimeout(() => {
      this.takeUp()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'looking for webhook deliveries stored by other Controllers failed'))
        .finally(() => this.sending && this.watch(everyMs));
    }, everyMs);
  }

  /** A deleted webhook's queue goes with it; a try under way finds the webhook gone and ends. */
  forget(webhookId: string): void {
    this.queues.get(webhookId)?.close();
    this.queues.delete(webhookId);
  }

  /** Deliveries waiting in this Controller, all webhooks together. */
  get pending(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.size;
    return n;
  }

  /** The job stops at once: tries under way are cut off (their deliveries stay PENDING) and nothing is queued here. */
  stop(): void {
    this.sending = false;
    clearTimeout(this.poll);
    this.stopping.abort();
    for (const queue of this.queues.values()) queue.close();
    this.queues.clear();
  }

  private queueOf(webhookId: string): DeliveryQueue {
    let queue = this.queues.get(webhookId);
    if (!queue) this.queues.set(webhookId, (queue = new DeliveryQueue((id) => this.attempt(id), () => this.deps.clock.now().getTime())));
    return queue;
  }

  /** One try: the webhook read as it is now (its URL, format or secret may have changed since the event). */
  private async attempt(deliveryId: string): Promise<number | null> {
    // This start's signal: a try of a job stopped since ends, though the job may run here again.
    const { signal } = this.stopping;
    try {
      const delivery = await this.deps.repos.webhookDeliveries.findById(deliveryId);
      if (!delivery || delivery.state !== 'PENDING') return null;
      const hook = await this.deps.repos.webhooks.findById(delivery.webhookId);
      if (!hook) return null;
      const text = deliveryBody(hook.format, delivery.body);
      const headers: Record<string, string> = { 'cairn-event': delivery.event, 'cairn-delivery': delivery._id };
      if (hook.secretSealed !== undefined) headers['cairn-signature'] = signatureHeader(this.deps.secrets.open(hook.secretSealed, webhookSecretPurpose(hook._id)), text, this.deps.clock.now());
      const outcome = await this.sender.send(hook.url, headers, text, signal);
      if (signal.aborted) return null;
      const attempts = delivery.attempts + 1;
      const step = nextStep(attempts, outcome, this.deps.clock.now());
      const error = tryError(outcome);
      await this.deps.repos.webhookDeliveries.update({ _id: deliveryId }, {
        state: step.state, attempts,
        ...(step.state === 'PENDING' ? { nextAttemptAt: step.retryAt.toISOString() } : {}),
        ...(outcome.kind === 'answered' ? { lastStatus: outcome.status } : {}),
        ...(error !== undefined ? { lastError: error } : {}),
      }, [...(step.state === 'PENDING' ? [] : ['nextAttemptAt' as const]), ...(error === undefined ? ['lastError' as const] : []), ...(outcome.kind === 'answered' ? [] : ['lastStatus' as const])]);
      if (step.state !== 'PENDING') {
        this.finished.emit(step.state);
        await pruneFinished(this.deps.repos, hook._id);
        return null;
      }
      return step.retryAt.getTime();
    } catch (err) {
      // The store or the secret failed us, not the endpoint: the delivery stays PENDING and the next start tries it again.
      this.deps.logger.error({ err, deliveryId }, 'a webhook delivery could not be tried');
      return null;
    }
  }
}
