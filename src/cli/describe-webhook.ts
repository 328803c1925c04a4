import type { Page, Webhook, WebhookDelivery } from './api-types.js';
import type { CliClient } from './client.js';
import { fields, indent } from './describe-lines.js';
import { document, table, type Format } from './output.js';
import { kinds, loadNames, resolve } from './resolve.js';

/** The latest deliveries shown: enough to see a run of failures and when they began. */
const deliveriesShown = 10;

function deliveries(items: WebhookDelivery[]): string {
  if (items.length === 0) return 'Deliveries: <none>\n';
  const body = items.map((d) => [d.createdAt, d.event, d.state, String(d.attempts), d.lastStatus === undefined ? '<none>' : String(d.lastStatus), d.lastError ?? '<none>', d.id]);
  return `Deliveries (newest first):\n${indent(table([['CREATED', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST-STATUS', 'LAST-ERROR', 'ID'], ...body]))}`;
}

/**
 * `cairn describe webhook NAME`: its fields (the secret only as whether there is one: the API never
 * returns it), its events one a line, and its latest deliveries. `-o json|yaml` prints the webhook as
 * the API sent it with those deliveries under `deliveries`.
 */
export async function describeWebhook(client: CliClient, ref: string, format: Format): Promise<string> {
  const hook = await resolve(client, kinds.webhook, ref);
  const latest = (await client.get<Page<WebhookDelivery>>(`/webhooks/${hook.id}/deliveries?limit=${deliveriesShown}`)).items;
  if (format === 'json' || format === 'yaml') return document({ ...hook, deliveries: latest }, format);
  const names = await loadNames(client, { teams: true });
  const summary = fields([
    ['Name', hook.name],
    ['ID', hook.id],
    ['Team', hook.teamId === undefined ? '<fleet>: every server\'s events and the Nodes\'' : names.team(hook.teamId)],
    ['URL', hook.url],
    ['Format', hook.format],
    ['Signed', hook.hasSecret ? 'yes (Cairn-Signature)' : 'no'],
    ['Created', hook.createdAt],
    ['Updated', hook.updatedAt],
  ]);
  return `${summary}${events(hook)}${deliveries(latest)}`;
}

const events = (hook: Webhook) => `Events:\n${hook.events.map((e) => `  ${e}\n`).join('')}`;
