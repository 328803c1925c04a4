import type { Command } from 'commander';
import type { Membership, Team } from '../api-types.js';
import type { CliClient } from '../client.js';
import { collect, connect, print, withGlobals } from '../context.js';
import { UsageError } from '../errors.js';
import { formatDone } from '../output.js';
import { kinds, resolve } from '../resolve.js';

/** The team of a membership command: `--team` is required there. */
export async function teamOf(client: CliClient, team: string | undefined): Promise<Team> {
  if (team === undefined) throw new UsageError('team members need --team TEAM');
  return resolve(client, kinds.team, team);
}

/** `cairn set member USER --team TEAM --role ROLE...`: a user's roles in a team (their permissions there are the union). */
export function registerMembers(program: Command): void {
  const set = program.command('set').description('set a user\'s roles in a team').helpCommand(false);
  withGlobals(set.command('member'))
    .description('make a user a member of a team with these roles (replacing the roles it had there)')
    .argument('<user>', 'a username or id')
    .requiredOption('--team <team>', 'the team (name or id)')
    .requiredOption('--role <role>', 'a role (name or id), e.g. operator; repeat, or separate with commas', collect)
    .action(async (userRef: string, opts: { team: string; role: string[] }, cmd: Command) => {
      const { client, format } = await connect(cmd);
      const team = await teamOf(client, opts.team);
      const user = await resolve(client, kinds.user, userRef);
      const roleIds = await Promise.all([...new Set(opts.role)].map(async (r) => (await resolve(client, kinds.role, r)).id));
      const membership = await client.call<Membership>('PUT', `/teams/${team.id}/members/${user.id}`, { roleIds });
      print(formatDone('member', user.username, `set in team/${team.name} (${opts.role.join(', ')})`, membership.body, format));
    });
}
