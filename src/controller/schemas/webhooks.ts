import Type, { type Static } from 'typebox';
import { DateTime, PrintableName, Uuid } from './common.js';

export const webhookFormats = ['json', 'discord', 'slack'] as const;
export const deliveryStates = ['PENDING', 'DELIVERED', 'FAILED'] as const;

/** What a webhook may hear. `node.*` reach fleet-wide webhooks only; `webhook.test` is sent by `Send test`, never subscribed. */
export const webhookEvents = [
  'server.crashed', 'server.crash_loop', 'server.started', 'server.stopped', 'server.slept', 'server.woke',
  'server.update_failed', 'server.migration_failed', 'backup.succeeded', 'backup.failed', 'schedule.run_failed',
  'node.unreachable', 'node.healthy',
] as const;
export const fleetOnlyEvents: readonly WebhookEventName[] = ['node.unreachable', 'node.healthy'];
export type WebhookEventName = (typeof webhookEvents)[number];

/** The body of a `json` delivery: what happened, to which server or Node, and its details (never console lines). */
export const WebhookEventBody = Type.Object({
  id: Uuid,
  event: Type.Union([Type.Enum(webhookEvents), Type.Literal('webhook.test')]),
  occurredAt: DateTime,
  server: Type.Optional(Type.Object({ id: Uuid, name: Type.String(), teamId: Uuid })),
  node: Type.Optional(Type.Object({ id: Uuid, name: Type.String() })),
  details: Type.Record(Type.String(), Type.Unknown()),
});
export type WebhookEventBody = Static<typeof WebhookEventBody>;

export const Webhook = Type.Object({
  id: Uuid,
  name: Type.String(),
  url: Type.String(),
  format: Type.Enum(webhookFormats),
  events: Type.Array(Type.Enum(webhookEvents)),
  teamId: Type.Optional(Uuid),
  hasSecret: Type.Boolean({ description: 'Whether deliveries carry a `Cairn-Signature` (the secret itself is never returned).' }),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const WebhookDelivery = Type.Object({
  id: Uuid,
  event: Type.String(),
  createdAt: DateTime,
  state: Type.Enum(deliveryStates),
  attempts: Type.Integer({ minimum: 0 }),
  lastStatus: Type.Optional(Type.Integer()),
  lastError: Type.Optional(Type.String()),
});

const WebhookUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; loopback, link-local and private addresses are refused unless the Controller runs with --allow-private-webhooks. Redirects are not followed.' });
const WebhookSecret = Type.String({ minLength: 16, maxLength: 256, description: 'Signs each delivery (`Cairn-Signature`); kept encrypted, never returned.' });

export const CreateWebhook = Type.Object({
  name: PrintableName(100),
  url: WebhookUrl,
  format: Type.Optional(Type.Enum(webhookFormats)),
  events: Type.Array(Type.Enum(webhookEvents), { minItems: 1, maxItems: webhookEvents.length, uniqueItems: true }),
  teamId: Type.Optional(Uuid),
  secret: Type.Optional(WebhookSecret),
}, { additionalProperties: false });

export const UpdateWebhook = Type.Object({
  name: Type.Optional(PrintableName(100)),
  url: Type.Optional(WebhookUrl),
  format: Type.Optional(Type.Enum(webhookFormats)),
  events: Type.Optional(Type.Array(Type.Enum(webhookEvents), { minItems: 1, maxItems: webhookEvents.length, uniqueItems: true })),
  secret: Type.Optional(Type.Union([WebhookSecret, Type.Null()], { description: 'A new secret, or null to send unsigned.' })),
}, { additionalProperties: false });
