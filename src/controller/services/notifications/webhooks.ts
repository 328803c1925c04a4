import type { Static } from 'typebox';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { invalidRequest, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import { isGlobalAdmin } from '../../domain/permissions.js';
import { fleetOnlyEvents, type CreateWebhook, type UpdateWebhook, type WebhookEventName } from '../../schemas/webhooks.js';
import type { WebhookDeliveryDoc, WebhookDoc } from '../../store/records.js';
import type { Access } from '../identity/access.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { checkWebhookUrl } from './webhook-address.js';
import { webhookSecretPurpose, type WebhookOutbox } from './webhook-outbox.js';
import { deliveryView, webhookView } from './webhook-views.js';

/** A team's webhook hears only its servers: Node events are for fleet-wide ones. */
function checkEvents(events: readonly WebhookEventName[], teamId: string | undefined): void {
  const fleetOnly = teamId === undefined ? undefined : events.find((e) => fleetOnlyEvents.includes(e));
  if (fleetOnly) throw invalidRequest(`body.events: ${fleetOnly} reaches fleet-wide webhooks only (no teamId).`);
}

/** What is recorded of a webhook in the audit log: never its secret, only whether it has one. */
const described = (doc: WebhookDoc) => ({ name: doc.name, url: doc.url, format: doc.format, events: doc.events, teamId: doc.teamId, hasSecret: doc.secretSealed !== undefined });

/**
 * Webhooks: a team's, managed with `servers.update` in the team, hearing its servers' events; or
 * fleet-wide, managed by global administrators, hearing every event.
 */
export class WebhookService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly outbox: WebhookOutbox,
    private readonly allowPrivate: boolean,
  ) {}

  private async requireManage(caller: Caller, teamId: string | undefined): Promise<void> {
    if (teamId === undefined) this.access.requireGlobalAdmin(caller);
    else await this.access.require(caller, teamId, 'servers.update', 'team', 'servers.read');
  }

  /** The webhook, when the caller may manage it; one it may not is not found (a fleet-wide one is no team's business). */
  private async managed(caller: Caller, id: string): Promise<WebhookDoc> {
    const doc = await this.deps.repos.webhooks.findById(id);
    if (!doc || (doc.teamId === undefined && !isGlobalAdmin(caller))) throw notFound('webhook');
    if (doc.teamId !== undefined) await this.access.require(caller, doc.teamId, 'servers.update', 'webhook', 'servers.read');
    return doc;
  }

  async create(caller: Caller, input: Static<typeof CreateWebhook>, audit: AuditScope) {
    const { secret, ...rest } = input;
    audit.detail({ ...rest, hasSecret: secret !== undefined });
    await this.requireManage(caller, input.teamId);
    if (input.teamId !== undefined && !(await this.deps.repos.teams.findById(input.teamId))) throw invalidRequest(`body.teamId: no team ${input.teamId}.`);
    checkEvents(input.events, input.teamId);
    const url = await checkWebhookUrl(input.url, this.allowPrivate);
    const id = this.deps.ids.next();
    const at = nowIso(this.deps);
    const doc: WebhookDoc = {
      _id: id, name: input.name, url, format: input.format ?? 'json', events: [...input.events],
      ...(input.teamId !== undefined ? { teamId: input.teamId } : {}),
      ...(secret !== undefined ? { secretSealed: this.deps.secrets.seal(secret, webhookSecretPurpose(id)) } : {}),
      createdAt: at, updatedAt: at,
    };
    await this.deps.repos.webhooks.insert(doc);
    audit.target(id);
    return webhookView(doc);
  }

  async list(caller: Caller, page: { limit: number; cursor?: string }) {
    const teams = await this.access.teamsWith(caller, 'servers.update');
    const mine = teams === undefined && isGlobalAdmin(caller) ? {} : { teamId: { $in: teams ?? [] } };
    const result = await paginate<WebhookDoc, string>(
      page,
      (after, limit) => this.deps.repos.webhooks.find(after === undefined ? mine : { $and: [mine, { _id: { $gt: after } }] }, { sort: { _id: 1 }, limit }),
      (d) => d._id,
    );
    return { ...result, items: result.items.map(webhookView) };
  }

  async get(caller: Caller, id: string) {
    return webhookView(await this.managed(caller, id));
  }

  async update(caller: Caller, id: string, input: Static<typeof UpdateWebhook>, audit: AuditScope) {
    audit.target(id);
    const { secret, ...rest } = input;
    audit.detail({ ...rest, ...(secret !== undefined ? { secret: secret === null ? 'removed' : 'replaced' } : {}) });
    const doc = await this.managed(caller, id);
    if (input.events) checkEvents(input.events, doc.teamId);
    const next: WebhookDoc = {
      ...doc,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.url !== undefined ? { url: await checkWebhookUrl(input.url, this.allowPrivate) } : {}),
      ...(input.format !== undefined ? { format: input.format } : {}),
      ...(input.events !== undefined ? { events: [...input.events] } : {}),
      updatedAt: nowIso(this.deps),
    };
    if (secret === null) delete next.secretSealed;
    else if (secret !== undefined) next.secretSealed = this.deps.secrets.seal(secret, webhookSecretPurpose(id));
    await this.deps.repos.webhooks.replace({ _id: id }, next);
    return webhookView(next);
  }

  async delete(caller: Caller, id: string, audit: AuditScope): Promise<void> {
    audit.target(id);
    const doc = await this.managed(caller, id);
    audit.detail(described(doc));
    await this.remove(id);
  }

  /** A deleted team's webhooks go with it: nobody could manage them, and none of its servers is left to hear. */
  async removeOfTeam(teamId: string): Promise<void> {
    for (const hook of await this.deps.repos.webhooks.find({ teamId })) await this.remove(hook._id);
  }

  private async remove(id: string): Promise<void> {
    this.outbox.forget(id);
    await this.deps.repos.webhooks.delete({ _id: id });
    await this.deps.repos.webhookDeliveries.delete({ webhookId: id });
  }

  /** `Send test`: a `webhook.test` delivery, queued like any other (answered before it is tried). */
  async test(caller: Caller, id: string, audit: AuditScope) {
    audit.target(id);
    const doc = await this.managed(caller, id);
    const [deliveryId] = await this.outbox.publish({ event: 'webhook.test', details: { webhook: doc.name } }, doc);
    const delivery = await this.deps.repos.webhookDeliveries.findById(deliveryId);
    if (!delivery) throw notFound('delivery');
    return deliveryView(delivery);
  }

  /** The webhook's deliveries, newest first. */
  async deliveries(caller: Caller, id: string, page: { limit: number; cursor?: string }) {
    await this.managed(caller, id);
    const result = await paginate<WebhookDeliveryDoc, string>(
      page,
      (before, limit) => this.deps.repos.webhookDeliveries.find(before === undefined ? { webhookId: id } : { webhookId: id, _id: { $lt: before } }, { sort: { _id: -1 }, limit }),
      (d) => d._id,
    );
    return { ...result, items: result.items.map(deliveryView) };
  }
}
