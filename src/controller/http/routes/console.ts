import { CommandSent, ConsoleCommand, ConsoleQuery, consoleTail } from '../../schemas/operations.js';
import { ServerParams } from '../../schemas/servers.js';
import { consoleRetryAfterSeconds, maxConsoleWatchers, maxConsoleWatchersPerUser } from '../../services/console/console-hub.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';
import { endEventStream, maxLagBytes, openEventStream } from '../sse.js';

const streamDescription = [
  `Server-Sent Events. First the last \`tail\` lines (${consoleTail.min} to ${consoleTail.max}, default ${consoleTail.default}) from the Agent's buffer, then one event per new line;`,
  'a keep-alive comment every 15 seconds; an `end` event when the server stops, after which the stream closes.',
  '',
  '`line` event data: `{"text": string, "at": date-time, "truncated": boolean, "replay": boolean}` — `text` is the line without its line break,',
  'cut at 16 KiB (`truncated: true` then); `at` is when the server printed it (replayed lines keep their time); `replay` marks the tail replay.',
  '',
  '`replayed` event data: `{"lines": integer}` — sent once, right after the replayed lines (also when there were none): a client that wants only the tail',
  '(`cairn logs` without `-f`) stops here instead of waiting for quiet. Clients that do not know the event ignore it.',
  '',
  '`end` event data: `{"reason": string, "exitCode"?: integer, "signal"?: string}` with reason `stopped` (asked to stop, or exited 0 by itself),',
  '`crashed` (non-zero exit, signal or failed start), `killed`, `lost` (the supervisor went away), `node_unavailable` (the Node disconnected),',
  '`lagging` (the client read too slowly and fell more than 4 MiB behind), `shutdown` (the Controller is stopping; reconnect once it is back)',
  'or `access_revoked` (the caller lost access: signed out, its session or API token ended or expired, its user deleted, or it no longer holds',
  '`servers.console` in the server\'s team; re-checked at each such change and every minute; no line printed after the change is sent).',
  '',
  `At most ${maxConsoleWatchers} streams per server at once, for every caller (global administrators too), and ${maxConsoleWatchersPerUser} per user per server.`,
  `More get 429 \`too_many_attempts\` with \`Retry-After: ${consoleRetryAfterSeconds}\`. A closed stream frees its slot at once.`,
  'After the process ended (a crash, a stop), the stream replays the last lines of that run, kept by the Agent, then the `end` event of that run, and closes.',
  'A server with no run its Agent saw end (never started, or the Agent restarted since) gets `server_not_running` (409). The Controller relays the console and never stores it.',
].join('\n');

export const consoleRoutes = (s: Services) => [
  route({
    method: 'POST', path: '/servers/{serverId}/console/commands', tag: 'console', status: 200,
    summary: 'Type one line into the server console as an operator would; the output appears in the console stream.',
    description: 'The server must be RUNNING (`server_not_running`). Audited with the command. `node_unavailable` when the Node is not connected or does not answer within 5 seconds.',
    params: ServerParams, body: ConsoleCommand, response: CommandSent, errors: ['server_not_running', 'node_unavailable'],
    audit: { action: 'server.command', targetKind: 'server' },
    handler: async ({ caller, params, body, audit }) => {
      await s.console.command(caller, params.serverId, body.command, audit);
      return { sent: true as const };
    },
  }),
  route({
    method: 'GET', path: '/servers/{serverId}/console', tag: 'console', status: 200, stream: 'text/event-stream',
    summary: 'The live console: replay of the last lines, then every new line, until the server stops.',
    description: streamDescription,
    params: ServerParams, query: ConsoleQuery, errors: ['too_many_attempts', 'server_not_running', 'node_unavailable'],
    handler: async ({ caller, params, query, ctx }) => {
      const watch = await s.console.watch(caller, params.serverId, query.tail);
      try {
        const stream = openEventStream(ctx);
        void stream.closed.then(() => watch.close());
        watch.start({
          line: (event) => {
            stream.send('line', event);
            if (stream.bufferedBytes > maxLagBytes) endEventStream(stream, { reason: 'lagging' });
          },
          replayed: (event) => stream.send('replayed', event),
          end: (event) => endEventStream(stream, event),
        });
      } catch (e) {
        watch.close();
        throw e;
      }
    },
  }),
];
