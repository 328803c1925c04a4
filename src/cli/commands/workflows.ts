import type { Command } from 'commander';
import type { Backup, DrainStarted, ServerDetail } from '../api-types.js';
import { connect, print, withGlobals } from '../context.js';
import { formatDone } from '../output.js';
import { parseDuration } from '../duration.js';
import { upgradeServer } from '../upgrade.js';
import { kinds, resolve, resolveDestinationId, resolveServer } from '../resolve.js';

/** Backups, restores, migrations and drains: each answers 202 and goes on in the Controller. */
export function registerWorkflows(program: Command): void {
  withGlobals(program.command('backup'))
    .description('back up a server now')
    .argument('<name>', 'a server name or id')
    .option('--destination <destination>', 'where to keep it (name or id; default: the Controller\'s default destination)')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (name: string, opts: { destination?: string; team?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const body = opts.destination === undefined ? {} : { destinationId: await resolveDestinationId(client, opts.destination) };
      const backup = await client.post<Backup>(`/servers/${server.id}/backups`, body);
      print(formatDone('backup', backup.id, `of server/${server.name} started`, backup, format));
    });

  withGlobals(program.command('restore'))
    .description('restore a backup into its server, or another of the same template')
    .argument('<backup>', 'the backup id (`cairn get backups`)')
    .option('--server <server>', 'restore into this server instead (name or id)')
    .option('--team <team>', 'narrows --server\'s name')
    .action(async (backupId: string, opts: { server?: string; team?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const body = opts.server === undefined ? {} : { serverId: (await resolveServer(client, opts.server, opts.team)).id };
      const server = await client.post<ServerDetail>(`/backups/${encodeURIComponent(backupId)}/restore`, body);
      print(formatDone('server', server.name, `restoring from backup/${backupId}`, server, format));
    });

  withGlobals(program.command('migrate'))
    .description('move a server to another Node')
    .argument('<name>', 'a server name or id')
    .requiredOption('--to <node>', 'the target Node (name or id)')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (name: string, opts: { to: string; team?: string }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const node = await resolve(client, kinds.node, opts.to);
      const detail = await client.post<ServerDetail>(`/servers/${server.id}/migrate`, { nodeId: node.id });
      print(formatDone('server', detail.name, `migrating to node/${node.name}`, detail, format));
    });

  withGlobals(program.command('upgrade'))
    .description('update a server to another version of its software; follows the update until it ends')
    .argument('<name>', 'a server name or id')
    .requiredOption('--version <version>', 'the version to go to (`GET /templates/{id}/versions`)')
    .option('--build <build>', 'a build of that version (default: the newest)')
    .option('--allow-downgrade', 'go to an older game version (its world may not open; a failed start rolls back)')
    .option('--force', 'update although installed catalog plugins have no version for the target')
    .option('--timeout <duration>', 'how long to follow the update', '15m')
    .option('--team <team>', 'narrows a server name shared across teams')
    .action(async (name: string, opts: { version: string; build?: string; allowDowngrade?: boolean; force?: boolean; timeout: string; team?: string }, cmd: Command) => {
      const timeoutMs = parseDuration(opts.timeout);
      const { client, format } = await connect(cmd);
      const server = await resolveServer(client, name, opts.team);
      const request = { version: opts.version, ...(opts.build ? { build: opts.build } : {}), ...(opts.allowDowngrade ? { allowDowngrade: true } : {}), ...(opts.force ? { force: true } : {}) };
      const progress = (step: string) => {
        if (format !== 'json' && format !== 'yaml' && format !== 'name') process.stderr.write(`server/${server.name}: ${step}\n`);
      };
      const done = await upgradeServer(client, server.id, request, timeoutMs, progress);
      const software = `${done.software.template} ${done.software.version}${done.software.build ? ` build ${done.software.build}` : ''}`;
      print(formatDone('server', done.name, `updated to ${software}`, done, format));
    });

  withGlobals(program.command('drain'))
    .description('move every server off a Node and disable it')
    .argument('<node>', 'a Node name or id')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const node = await resolve(client, kinds.node, name);
      const answer = await client.post<DrainStarted>(`/nodes/${node.id}/drain`);
      print(formatDone('node', node.name, `draining (${answer.serverIds.length} server${answer.serverIds.length === 1 ? '' : 's'} moving)`, answer, format));
    });
}
