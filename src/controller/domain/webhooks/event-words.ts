import type { WebhookEventBody } from '../../schemas/webhooks.js';

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);
const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

/** How a game ended, in words: the kernel's OOM kill with the limit it hit, a signal, or an exit code. */
export function crashWords(details: Record<string, unknown>): string {
  if (details.reason === 'OOM_KILLED') {
    const limit = int(details.memoryLimitBytes);
    return `killed: out of memory${limit === undefined ? '' : ` at its ${mib(limit)} limit`}`;
  }
  const signal = text(details.signal);
  if (signal) return `ended by ${signal}`;
  const code = int(details.exitCode);
  return code === undefined ? 'ended with no exit status' : `exit code ${code}`;
}

function subject(body: WebhookEventBody): string {
  if (body.server) return body.server.name;
  if (body.node) return `Node ${body.node.name}`;
  return 'Cairn';
}

/** One line that says what happened; what a chat message leads with. */
export function headline(body: WebhookEventBody): string {
  const who = subject(body);
  const d = body.details;
  const why = text(d.message) ?? text(d.reason);
  switch (body.event) {
    case 'server.crashed': return `${who} crashed: ${crashWords(d)}`;
    case 'server.crash_loop': return `${who} keeps crashing; automatic restarts stopped until acknowledged`;
    case 'server.started': return `${who} started`;
    case 'server.stopped': return `${who} stopped`;
    case 'server.slept': return `${who} is asleep (no players)`;
    case 'server.woke': return `${who} woke${text(d.player) ? ` for ${text(d.player)}` : ''}`;
    case 'server.update_failed': return `${who}: software update failed${why ? `: ${why}` : ''}`;
    case 'server.migration_failed': return `${who}: migration failed${why ? `: ${why}` : ''}`;
    case 'backup.succeeded': return `${who}: backup succeeded`;
    case 'backup.failed': return `${who}: backup failed${why ? `: ${why}` : ''}`;
    case 'schedule.run_failed': return `${who}: schedule ${text(d.scheduleName) ?? ''} failed${why ? `: ${why}` : ''}`.replace('  ', ' ');
    case 'node.unreachable': return `${who} is unreachable`;
    case 'node.healthy': return `${who} is healthy again`;
    case 'webhook.test': return 'Test delivery from Cairn: this webhook works';
  }
}

/** Whether the event is bad news (a chat embed's colour). */
export function isTrouble(event: WebhookEventBody['event']): boolean {
  return ['server.crashed', 'server.crash_loop', 'server.update_failed', 'server.migration_failed', 'backup.failed', 'schedule.run_failed', 'node.unreachable'].includes(event);
}
