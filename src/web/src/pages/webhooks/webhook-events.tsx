import type { Choice } from '../../components/Choices';
import type { WebhookEventName } from '../../api/types';

/**
 * What each event a webhook may hear means. A Record over the API's event names, so the compiler
 * refuses a list that misses or invents one; `fleetOnly` ones reach fleet-wide webhooks only, as
 * the API refuses them on a team's.
 */
const events: Record<WebhookEventName, { hint: string; fleetOnly?: true }> = {
  'server.crashed': { hint: 'A server stopped on its own: its exit code or signal, and why (out of memory).' },
  'server.crash_loop': { hint: 'A server crashed too often to be restarted again.' },
  'server.started': { hint: 'A server is running.' },
  'server.stopped': { hint: 'A server was stopped.' },
  'server.slept': { hint: 'A server stopped while nobody played.' },
  'server.woke': { hint: 'A sleeping server started for a player who joined.' },
  'server.update_failed': { hint: 'A software update was rolled back.' },
  'server.migration_failed': { hint: 'A move to another Node was rolled back.' },
  'backup.succeeded': { hint: 'A backup finished.' },
  'backup.failed': { hint: 'A backup failed.' },
  'schedule.run_failed': { hint: 'A schedule\'s run failed.' },
  'node.unreachable': { hint: 'A Node stopped answering.', fleetOnly: true },
  'node.healthy': { hint: 'A Node answers again.', fleetOnly: true },
};

const all = Object.keys(events) as WebhookEventName[];

/** The events a webhook of a team (`fleetWide` false) or of the whole fleet may hear. */
export const eventNames = (fleetWide: boolean) => all.filter((e) => fleetWide || !events[e].fleetOnly);

export const eventChoices = (fleetWide: boolean): Choice<WebhookEventName>[] =>
  eventNames(fleetWide).map((value) => ({ value, label: <code>{value}</code>, hint: events[value].hint }));
