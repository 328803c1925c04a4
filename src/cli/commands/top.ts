import { Option, type Command } from 'commander';
import { connect, print, withGlobals } from '../context.js';
import { document, formatList, type Format, type View } from '../output.js';
import { kinds, resolve } from '../resolve.js';
import { nodeTops, serverTops } from '../top-fetch.js';
import { nodeTopView, serverTopView, sortKeys, sortServerTops, type SortKey } from '../top-rows.js';

/** JSON and YAML print the rows themselves as one array (there is no API answer to print: they are put together from several). */
function printTop<T>(view: View<T>, rows: T[], format: Format): void {
  if (format === 'json' || format === 'yaml') {
    print(document(rows, format));
    return;
  }
  if (rows.length === 0 && (format === 'table' || format === 'wide')) process.stderr.write(`No ${view.plural} found.\n`);
  print(formatList(view, rows, format));
}

/** `cairn top servers|nodes`: what is in use now, as `kubectl top` shows it. */
export function registerTop(program: Command): void {
  const top = program.command('top').description('show what running servers and Nodes use now: servers|nodes').helpCommand(false);

  withGlobals(top.command('servers'))
    .description('running servers (RUNNING or STARTING) with their CPU and memory used of what they reserve, and players online')
    .option('--team <team>', 'servers of this team only (name or id)')
    .option('--node <node>', 'servers on this Node only (name or id)')
    .addOption(new Option('--sort-by <key>', 'order of the rows: busiest first, or names A to Z').choices(sortKeys).default('cpu'))
    .action(async (opts: { team?: string; node?: string; sortBy: SortKey }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const [teamId, nodeId] = await Promise.all([
        opts.team === undefined ? undefined : resolve(client, kinds.team, opts.team).then((t) => t.id),
        opts.node === undefined ? undefined : resolve(client, kinds.node, opts.node).then((n) => n.id),
      ]);
      printTop(serverTopView, sortServerTops(await serverTops(client, { teamId, nodeId }), opts.sortBy), format);
    });

  withGlobals(top.command('nodes'))
    .description('Nodes with the CPU and memory their hosts use now, what their servers reserve of what they offer, their servers and players online')
    .action(async (_opts: unknown, cmd: Command) => {
      const { client, format } = await connect(cmd);
      printTop(nodeTopView, await nodeTops(client), format);
    });
}
