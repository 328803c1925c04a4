import type { BackupDestination, NodeInfo, Role, ServerItem, Team, User, Webhook } from './api-types.js';
import type { CliClient } from './client.js';
import { ApiError, CliError, notFound } from './errors.js';
import type { Names } from './views.js';

/** How to find one kind of thing by name or id. */
export interface Kind<T> {
  word: string;
  plural: string;
  listPath: string;
  itemPath: (id: string) => string;
  nameOf(item: T): string;
  /** Names unique regardless of case (Nodes, users): a name in other case still finds its one thing. */
  foldCase?: boolean;
}

export const kinds = {
  server: { word: 'server', plural: 'servers', listPath: '/servers', itemPath: (id) => `/servers/${id}`, nameOf: (s) => s.name } satisfies Kind<ServerItem>,
  node: { word: 'node', plural: 'nodes', listPath: '/nodes', itemPath: (id) => `/nodes/${id}`, nameOf: (n) => n.name, foldCase: true } satisfies Kind<NodeInfo>,
  team: { word: 'team', plural: 'teams', listPath: '/teams', itemPath: (id) => `/teams/${id}`, nameOf: (t) => t.name } satisfies Kind<Team>,
  user: { word: 'user', plural: 'users', listPath: '/users', itemPath: (id) => `/users/${id}`, nameOf: (u) => u.username, foldCase: true } satisfies Kind<User>,
  role: { word: 'role', plural: 'roles', listPath: '/roles', itemPath: (id) => `/roles/${id}`, nameOf: (r) => r.name } satisfies Kind<Role>,
  webhook: { word: 'webhook', plural: 'webhooks', listPath: '/webhooks', itemPath: (id) => `/webhooks/${id}`, nameOf: (w) => w.name } satisfies Kind<Webhook>,
  destination: {
    word: 'backup destination', plural: 'backup destinations', listPath: '/backup-destinations', itemPath: (id) => `/backup-destinations/${id}`, nameOf: (d) => d.name,
  } satisfies Kind<BackupDestination>,
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isId = (ref: string) => uuid.test(ref);

/** The items called `ref`: exact names first; for case-folding kinds, names equal regardless of case. */
export function matchesByName<T>(kind: Kind<T>, items: T[], ref: string): T[] {
  const exact = items.filter((i) => kind.nameOf(i) === ref);
  if (exact.length > 0 || !kind.foldCase) return exact;
  return items.filter((i) => kind.nameOf(i).toLowerCase() === ref.toLowerCase());
}

/** The refusal for a name several things share, listing each so the user can pick one by id. */
export function ambiguity(kind: { word: string; plural: string }, ref: string, labels: string[], narrowing?: string): CliError {
  const hint = narrowing ? `name one by id, or narrow with ${narrowing}` : 'name one by id';
  return new CliError([`${kind.word} name "${ref}" is ambiguous: ${labels.length} ${kind.plural} match; ${hint}:`, ...labels.map((l) => `  ${l}`)].join('\n'));
}

/**
 * The one `kind` that `ref` names: an id is fetched directly (and, should nothing have that id,
 * looked up as a name), a name is looked up in the list the caller may see, `query` narrowing it.
 */
export async function resolve<T>(client: CliClient, kind: Kind<T>, ref: string, options: { query?: Record<string, string | undefined>; label?: (items: T[]) => Promise<string[]>; narrowing?: string } = {}): Promise<T> {
  if (isId(ref)) {
    try {
      return await client.get<T>(kind.itemPath(ref));
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 404) throw e;
    }
  }
  const matches = matchesByName(kind, await client.all<T>(kind.listPath, options.query), ref);
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw notFound(kind.word, ref);
  const labels = options.label ? await options.label(matches) : matches.map((m) => (m as { id: string }).id);
  throw ambiguity(kind, ref, labels, options.narrowing);
}

/** Names of what the caller may list; what it may not list shows as ids. */
export async function loadNames(client: CliClient, need: { teams?: boolean; nodes?: boolean; servers?: boolean; users?: boolean; roles?: boolean }): Promise<Names> {
  const list = async <T extends { id: string }>(wanted: boolean | undefined, path: string, nameOf: (t: T) => string) => {
    if (!wanted) return new Map<string, string>();
    try {
      return new Map((await client.all<T>(path)).map((t) => [t.id, nameOf(t)]));
    } catch (e) {
      if (e instanceof ApiError) return new Map<string, string>();
      throw e;
    }
  };
  const [teams, nodes, servers, users, roles] = await Promise.all([
    list<Team>(need.teams, '/teams', (t) => t.name),
    list<NodeInfo>(need.nodes, '/nodes', (n) => n.name),
    list<ServerItem>(need.servers, '/servers', (s) => s.name),
    list<User>(need.users, '/users', (u) => u.username),
    list<Role>(need.roles, '/roles', (r) => r.name),
  ]);
  return {
    team: (id) => teams.get(id) ?? id,
    node: (id) => (id === undefined ? undefined : nodes.get(id) ?? id),
    server: (id) => servers.get(id) ?? id,
    user: (id) => users.get(id) ?? id,
    role: (id) => roles.get(id) ?? id,
  };
}

/** A server by name or id; `team` (a team's name or id) narrows a name shared across teams. */
export async function resolveServer(client: CliClient, ref: string, team?: string): Promise<ServerItem> {
  const teamId = team === undefined ? undefined : (await resolve(client, kinds.team, team)).id;
  return resolve(client, kinds.server, ref, {
    query: { teamId },
    narrowing: team === undefined ? '--team' : undefined,
    label: async (matches) => {
      const names = await loadNames(client, { teams: true, nodes: true });
      return matches.map((s) => `${s.id}  team ${names.team(s.teamId)}  node ${names.node(s.nodeId) ?? '<none>'}`);
    },
  });
}

/** A backup destination by id as given (anyone with backups.create may name one), by name through the list (global administrators). */
export const resolveDestinationId = async (client: CliClient, ref: string) => (isId(ref) ? ref : (await resolve(client, kinds.destination, ref)).id);
