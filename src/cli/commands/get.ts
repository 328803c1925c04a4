import type { Command } from 'commander';
import type { Backup, Membership, ServerItem, Template, TemplateVersion } from '../api-types.js';
import type { CliClient } from '../client.js';
import { connect, print, withGlobals } from '../context.js';
import { parseDuration } from '../duration.js';
import { notFound, UsageError } from '../errors.js';
import { teamOf } from './members.js';
import { formatList, formatOne, type View } from '../output.js';
import { kinds, loadNames, resolve, resolveServer, type Kind } from '../resolve.js';
import { findRun, listRuns, runView } from '../schedule-runs.js';
import { listSchedules, resolveSchedule } from '../schedules.js';
import { listSshKeys, resolveSshKey, sshKeyView } from '../ssh-keys.js';
import { backupView, memberView, nodeView, roleView, scheduleView, serverView, teamView, templateView, userView, versionView, webhookView, type Names } from '../views.js';
import { watchServers } from '../watch-servers.js';

interface GetOptions {
  team?: string;
  node?: string;
  server?: string;
  schedule?: string;
  project?: string;
  watch?: boolean;
  reconnectTimeout: string;
}

/** One kind `cairn get` knows: how to list it, fetch one by name or id, and show it. */
interface Getter {
  list(client: CliClient, opts: GetOptions): Promise<unknown[]>;
  one(client: CliClient, ref: string, opts: GetOptions): Promise<unknown>;
  view(names: Names): View<unknown>;
  names?: Parameters<typeof loadNames>[1];
  /** A kind listed within another (a template's versions): NAME names that owner and is required. */
  within?: { word: string; list(client: CliClient, owner: string, opts: GetOptions): Promise<unknown[]> };
}

/** Lists and details of a kind whose detail lives at its item path. */
const plain = <T>(kind: Kind<T>, view: View<T>): Getter => ({
  list: (client) => client.all(kind.listPath),
  one: async (client, ref) => client.get(kind.itemPath((await resolve(client, kind, ref) as { id: string }).id)),
  view: () => view as View<unknown>,
});

const idOf = async (client: CliClient, kind: Kind<{ id: string }>, ref: string | undefined) => (ref === undefined ? undefined : (await resolve(client, kind, ref)).id);

const getters: Record<string, Getter> = {
  servers: {
    list: async (client, opts) => client.all<ServerItem>('/servers', { teamId: await idOf(client, kinds.team, opts.team), nodeId: await idOf(client, kinds.node, opts.node) }),
    one: async (client, ref, opts) => client.get(`/servers/${(await resolveServer(client, ref, opts.team)).id}`),
    view: (names) => serverView(names) as View<unknown>,
    names: { teams: true, nodes: true },
  },
  nodes: plain(kinds.node, nodeView),
  teams: plain(kinds.team, teamView),
  users: plain(kinds.user, userView),
  roles: plain(kinds.role, roleView),
  webhooks: {
    list: (client) => client.all(kinds.webhook.listPath),
    // The list's items are the webhooks themselves: the one a name finds needs no second read.
    one: (client, ref) => resolve(client, kinds.webhook, ref),
    view: (names) => webhookView(names) as View<unknown>,
    names: { teams: true },
  },
  templates: {
    list: (client) => client.all<Template>('/templates'),
    one: async (client, ref) => {
      const found = (await client.all<Template>('/templates')).find((t) => t.id === ref);
      if (!found) throw notFound('template', ref);
      return found;
    },
    view: () => templateView as View<unknown>,
  },
  versions: {
    list: () => Promise.reject(new UsageError('name the template: cairn get versions TEMPLATE')),
    one: () => Promise.reject(new UsageError('name the template: cairn get versions TEMPLATE')),
    view: () => versionView as View<unknown>,
    within: { word: 'TEMPLATE', list: (client, template, opts) => client.all<TemplateVersion>(`/templates/${encodeURIComponent(template)}/versions`, { project: opts.project }) },
  },
  backups: {
    list: async (client, opts) => client.all<Backup>('/backups', { serverId: opts.server === undefined ? undefined : (await resolveServer(client, opts.server, opts.team)).id }),
    one: (client, ref) => client.get<Backup>(`/backups/${encodeURIComponent(ref)}`),
    view: (names) => backupView(names) as View<unknown>,
    names: { nodes: true, servers: true },
  },
  schedules: {
    list: (client, opts) => listSchedules(client, opts),
    one: (client, ref, opts) => resolveSchedule(client, ref, opts),
    view: (names) => scheduleView(names) as View<unknown>,
    names: { servers: true },
  },
  runs: {
    list: (client, opts) => listRuns(client, opts),
    one: (client, ref, opts) => findRun(client, ref, opts),
    view: () => runView as View<unknown>,
  },
  members: {
    list: async (client, opts) => client.all<Membership>(`/teams/${(await teamOf(client, opts.team)).id}/members`),
    one: async (client, ref, opts) => {
      const user = await resolve(client, kinds.user, ref);
      const found = (await client.all<Membership>(`/teams/${(await teamOf(client, opts.team)).id}/members`)).find((m) => m.userId === user.id);
      if (!found) throw notFound('member', ref);
      return found;
    },
    view: (names) => memberView(names) as View<unknown>,
    names: { teams: true, users: true, roles: true },
  },
  'ssh-keys': {
    list: (client) => listSshKeys(client),
    one: (client, ref) => resolveSshKey(client, ref),
    view: () => sshKeyView as View<unknown>,
  },
};

/** `server` and `servers` both work, as in kubectl. */
export function getterFor(type: string): Getter {
  const getter = Object.hasOwn(getters, type) ? getters[type] : Object.hasOwn(getters, `${type}s`) ? getters[`${type}s`] : undefined;
  if (!getter) throw new UsageError(`unknown type "${type}" (one of ${Object.keys(getters).join(', ')})`);
  return getter;
}

export function registerGet(program: Command): void {
  withGlobals(program.command('get'))
    .description(`list things, or show one: ${Object.keys(getters).join('|')}`)
    .addHelpText('after', '\nServers: RUNTIME reads SLEEPING while a server sleeps (`sleep`: stopped for want of players while desired RUNNING;\n'
      + 'its port still answers, and a join or `cairn start` wakes it).')
    .argument('<type>', Object.keys(getters).join('|'))
    .argument('[name]', 'a name or id; for versions, the template')
    .option('--team <team>', 'servers or schedules of this team only, members of this team (name or id); narrows a server name')
    .option('--node <node>', 'servers on this Node only (name or id)')
    .option('--server <server>', 'backups or schedules of this server only (name or id); narrows a schedule name')
    .option('--schedule <schedule>', 'runs: the schedule whose runs are listed, newest first (name or id; required)')
    .option('--project <slug>', 'versions of the modrinth template: the modpack\'s Modrinth project slug')
    .option('-w, --watch', 'servers: after the list, print each change as it happens; resumes after the stream drops')
    .option('--reconnect-timeout <duration>', 'with --watch: give up (exit 1) when the stream stays lost this long', '60s')
    .action(async (type: string, name: string | undefined, opts: GetOptions, cmd: Command) => {
      const getter = getterFor(type);
      if (opts.watch && getter !== getters.servers) throw new UsageError('--watch works for servers');
      const { client, format } = await connect(cmd);
      const names = getter.names ? await loadNames(client, getter.names) : await loadNames(client, {});
      const view = getter.view(names);
      if (getter.within) {
        if (name === undefined) throw new UsageError(`cairn get ${type} ${getter.within.word}: name the ${getter.within.word.toLowerCase()}`);
        const items = await getter.within.list(client, name, opts);
        if (items.length === 0 && (format === 'table' || format === 'wide')) process.stderr.write(`No ${view.plural} found.\n`);
        print(formatList(view, items, format));
        return;
      }
      if (name !== undefined && !opts.watch) {
        print(formatOne(view, await getter.one(client, name, opts), format));
        return;
      }
      if (opts.watch) {
        const only = name === undefined ? undefined : (await resolveServer(client, name, opts.team)).id;
        const filter = { teamId: await idOf(client, kinds.team, opts.team), nodeId: await idOf(client, kinds.node, opts.node), serverId: only };
        await watchServers(client, view, format, filter, parseDuration(opts.reconnectTimeout));
        return;
      }
      const items = await getter.list(client, opts);
      if (items.length === 0 && (format === 'table' || format === 'wide')) process.stderr.write(`No ${view.plural} found.\n`);
      print(formatList(view, items, format));
    });
}
