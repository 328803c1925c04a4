import type { Command } from 'commander';
import type { Webhook } from '../api-types.js';
import { collect, connect, print, withGlobals } from '../context.js';
import { formatDone } from '../output.js';
import { readLineFromStdin } from '../read-secret.js';
import { kinds, resolve } from '../resolve.js';

interface WebhookOptions {
  url: string;
  event: string[];
  team?: string;
  format?: string;
  secretStdin?: boolean;
}

/**
 * `cairn create webhook`: the API checks the events, the format and the URL and names the field it
 * refuses, so they are sent as typed. The secret comes from stdin only, never from argv.
 */
export function registerCreateWebhook(create: Command): void {
  withGlobals(create.command('webhook'), { ownUrl: true })
    .description('create a webhook: each event it names is POSTed to the URL; with no --team it hears the whole fleet (global administrators)')
    .argument('<name>')
    .requiredOption('--url <url>', 'where deliveries are POSTed (http or https); here it is not the Controller\'s, which goes before the verb (`cairn --url U create webhook`), in CAIRN_URL or comes from `cairn login`')
    .requiredOption('--event <event>', 'an event, e.g. server.crashed or backup.failed (repeat, or separate with commas)', collect)
    .option('--team <team>', 'the team whose servers it hears (name or id); needs servers.update there')
    .option('--format <format>', 'json, discord or slack (default json)')
    .option('--secret-stdin', 'read a secret from stdin (16 to 256 characters): each delivery is then signed (Cairn-Signature)')
    .action(async (name: string, opts: WebhookOptions, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const body = {
        name, url: opts.url, events: opts.event,
        ...(opts.team === undefined ? {} : { teamId: (await resolve(client, kinds.team, opts.team)).id }),
        ...(opts.format === undefined ? {} : { format: opts.format }),
        ...(opts.secretStdin ? { secret: await readLineFromStdin() } : {}),
      };
      const created = await client.post<Webhook>('/webhooks', body);
      print(formatDone('webhook', created.name, 'created', created, format));
    });
}
