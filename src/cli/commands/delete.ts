import type { Command } from 'commander';
import { connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { formatDone } from '../output.js';
import { kinds, resolve, resolveServer, type Kind } from '../resolve.js';
import { resolveSchedule } from '../schedules.js';
import { resolveSshKey } from '../ssh-keys.js';
import { teamOf } from './members.js';

const deletable: Record<string, Kind<{ id: string }>> = { server: kinds.server, node: kinds.node, team: kinds.team, user: kinds.user, role: kinds.role, webhook: kinds.webhook };

export function registerDelete(program: Command): void {
  withGlobals(program.command('delete'))
    .description('delete a server, Node, team, user, role, webhook, schedule or one of your SSH keys; or a member of a team')
    .argument('<type>', [...Object.keys(deletable), 'schedule', 'member', 'ssh-key'].join('|'))
    .argument('<name>', 'a name or id')
    .option('--team <team>', 'narrows a server name shared across teams; the team of a member')
    .option('--server <server>', 'the schedule\'s server (name or id): narrows a schedule name that several servers\' schedules have')
    .action(async (type: string, name: string, opts: { team?: string; server?: string }, cmd: Command) => {
      const word = type.replace(/s$/, '');
      if (word === 'schedule') {
        const { client, format } = await connect(cmd);
        const schedule = await resolveSchedule(client, name, opts);
        await client.delete(`/schedules/${schedule.id}`);
        print(formatDone('schedule', schedule.name, 'deleted', undefined, format));
        return;
      }
      if (word === 'ssh-key') {
        const { client, format } = await connect(cmd);
        const key = await resolveSshKey(client, name);
        await client.delete(`/me/ssh-keys/${key.id}`);
        print(formatDone('ssh-key', key.name, 'deleted', undefined, format));
        return;
      }
      if (word === 'member') {
        const { client, format } = await connect(cmd);
        const team = await teamOf(client, opts.team);
        const user = await resolve(client, kinds.user, name);
        await client.delete(`/teams/${team.id}/members/${user.id}`);
        print(formatDone('member', user.username, `removed from team/${team.name}`, undefined, format));
        return;
      }
      const kind = Object.hasOwn(deletable, word) ? deletable[word] : undefined;
      if (!kind) throw new UsageError(`cannot delete "${type}" (one of ${[...Object.keys(deletable), 'schedule', 'member', 'ssh-key'].join(', ')})`);
      const { client, format } = await connect(cmd);
      const target = kind === kinds.server ? await resolveServer(client, name, opts.team) : await resolve(client, kind, name);
      const answer = await client.delete(kind.itemPath(target.id));
      // As kubectl says `deleted` of a pod still terminating: a server goes once its Node has removed it (`cairn wait --for=deleted`).
      print(formatDone(kind.word, kind.nameOf(target), 'deleted', answer, format));
    });
}
