import type { Command } from 'commander';
import type { ServerItem } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { ApiError, CliError, UsageError } from '../errors.js';
import { resolveServer } from '../resolve.js';
import { waitConditions, waitFor, type WaitCondition } from '../wait-server.js';

const describeState = (s: ServerItem | undefined) =>
  s === undefined ? 'gone' : `desired ${s.desiredState}, phase ${s.phase}, runtime ${s.runtimeState ?? '<none>'}, convergence ${s.convergence}`;

export function registerWait(program: Command): void {
  withGlobals(program.command('wait'))
    .description('wait until a server is converged|running|stopped|ready|deleted')
    .argument('<type>', 'server')
    .argument('<name>', 'a server name or id')
    .requiredOption('--for <condition>', waitConditions.join('|'))
    .option('--timeout <duration>', 'give up after this long', '60s')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (type: string, name: string, opts: { for: string; timeout: string; team?: string }, cmd: Command) => {
      if (type !== 'server' && type !== 'servers') throw new UsageError(`cannot wait for "${type}" (server)`);
      const condition = opts.for.replace(/^condition=/, '').toLowerCase() as WaitCondition;
      if (!waitConditions.includes(condition)) throw new UsageError(`--for must be one of ${waitConditions.join(', ')}, got "${opts.for}"`);
      const timeoutMs = parseDuration(opts.timeout);
      const { client, format } = await connect(cmd);
      let server: ServerItem;
      try {
        server = await resolveServer(client, name, opts.team);
      } catch (e) {
        if (condition === 'deleted' && e instanceof ApiError && e.status === 404) return;
        throw e;
      }
      const { met, last } = await waitFor(client, server.id, condition, timeoutMs);
      if (!met) throw new CliError(`timed out after ${opts.timeout} waiting for server/${server.name} to be ${condition} (now ${describeState(last)})`);
      print(format === 'name' ? `server/${server.name}\n` : `server/${server.name} condition met\n`);
    });
}
