import type { Command } from 'commander';
import type { ConsoleEndEvent, ConsoleLineEvent } from '../api-types.js';
import { connect, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { UsageError } from '../errors.js';
import { followLogs } from '../follow-logs.js';
import { QuietTimer } from '../quiet-timer.js';
import { resolveServer } from '../resolve.js';
import { readEvents, type StreamEvent } from '../sse.js';
import { withoutControls } from '../terminal-text.js';

/** `exec` prints output for at most this long in all. */
const execLimitMs = 10_000;

/** Game output as it came with `--raw`; otherwise without the terminal control it may carry. */
const printer = (raw: boolean | undefined) => (raw ? (text: string) => process.stdout.write(text) : (text: string) => process.stdout.write(withoutControls(text)));

const line = (e: StreamEvent, print: (text: string) => void) => print(`${(e.data as ConsoleLineEvent).text}\n`);

function ended(e: StreamEvent): void {
  const end = e.data as ConsoleEndEvent;
  const how = end.exitCode !== undefined ? `, exit code ${end.exitCode}` : end.signal ? `, signal ${end.signal}` : '';
  process.stderr.write(`(console ended: ${end.reason}${how})\n`);
}

export function registerConsole(program: Command): void {
  withGlobals(program.command('logs'))
    .description('print a running server\'s console; -f follows it')
    .argument('<name>', 'a server name or id')
    .option('--tail <n>', 'how many of the last lines (0 to 1000; default 100)')
    .option('-f, --follow', 'keep printing new lines, across restarts, until the server is stopped or deleted, or Ctrl-C')
    .option('--team <team>', 'narrows a server name shared across teams')
    .option('--raw', 'print terminal control sequences in the output as they came (removed by default)')
    .action(async (name: string, opts: { tail?: string; follow?: boolean; team?: string; raw?: boolean }, cmd: Command) => {
      if (opts.tail !== undefined && !/^\d+$/.test(opts.tail)) throw new UsageError(`--tail must be a whole number, got "${opts.tail}"`);
      const { client } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const print = printer(opts.raw);
      if (opts.follow) return followLogs(client, server, opts.tail === undefined ? undefined : Number(opts.tail), print);
      const query = opts.tail === undefined ? '' : `?tail=${opts.tail}`;
      await readEvents(client, `/servers/${server.id}/console${query}`, (e) => {
        if (e.event === 'end') {
          ended(e);
          return 'stop';
        }
        // The Controller marks the end of the replayed tail: that is the end of what is printed.
        if (e.event === 'replayed') return 'stop';
        if (e.event === 'line') line(e, print);
      });
    });

  withGlobals(program.command('exec'))
    .description('type a console command and print the output that follows')
    .argument('<name>', 'a server name or id')
    .argument('<command...>', 'the console command, after --, e.g. -- say hello')
    .option('--wait <duration>', 'print output until none came for this long', '1s')
    .option('--team <team>', 'narrows a server name shared across teams')
    .option('--raw', 'print terminal control sequences in the output as they came (removed by default)')
    .action(async (name: string, words: string[], opts: { wait: string; team?: string; raw?: boolean }, cmd: Command) => {
      const quietMs = parseDuration(opts.wait);
      const print = printer(opts.raw);
      const { client } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const abort = new AbortController();
      const quiet = new QuietTimer(quietMs, abort);
      const limit = setTimeout(() => abort.abort(), execLimitMs);
      let refused: Error | undefined;
      try {
        await readEvents(client, `/servers/${server.id}/console?tail=0`, (e) => {
          if (e.event === 'end') {
            ended(e);
            return 'stop';
          }
          if (e.event !== 'line') return;
          line(e, print);
          quiet.touch();
        }, {
          signal: abort.signal,
          onOpen: () => {
            client.post(`/servers/${server.id}/console/commands`, { command: words.join(' ') }).then(() => quiet.touch(), (err: unknown) => {
              refused = err as Error;
              abort.abort();
            });
          },
        });
        if (refused) throw refused;
      } finally {
        quiet.stop();
        clearTimeout(limit);
      }
    });
}
