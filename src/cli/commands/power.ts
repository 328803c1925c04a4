import type { Command } from 'commander';
import type { ServerDetail } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { formatDone } from '../output.js';
import { resolveServer } from '../resolve.js';

const done = { start: 'starting', stop: 'stopping', restart: 'restarting' } as const;

/** `cairn start|stop|restart NAME`: changes desired state (202); `cairn wait` follows it to the end. */
export function registerPower(program: Command): void {
  for (const verb of ['start', 'stop', 'restart'] as const) {
    withGlobals(program.command(verb))
      .description(`${verb} a server`)
      .argument('<name>', 'a server name or id')
      .option('--team <team>', 'narrows a server name shared across teams')
      .action(async (name: string, opts: { team?: string }, cmd: Command) => {
        const { client, format } = await connect(cmd);
        const server = await resolveServer(client, name, opts.team);
        const detail = await client.post<ServerDetail>(`/servers/${server.id}/${verb}`);
        print(formatDone('server', detail.name, done[verb], detail, format));
      });
  }
}
