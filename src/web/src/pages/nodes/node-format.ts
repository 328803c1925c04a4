import type { Node } from '../../api/types.js';

const adminTone: Record<Node['adminState'], string> = { ENABLED: 'good', DISABLED: 'busy', REVOKED: 'bad' };
const connectionTone: Record<Node['status']['connectionState'], string> = {
  HEALTHY: 'good', AWAITING_ENROLLMENT: 'busy', DEGRADED: 'busy', UNREACHABLE: 'bad',
};

/** The `.state` class of an admin or connection state: the enum value stays the text. */
export const adminStateClass = (state: Node['adminState']) => `state ${adminTone[state]}`;
export const connectionStateClass = (state: Node['status']['connectionState']) => `state ${connectionTone[state]}`;

/** A Controller's id as tables show it: its first 8 characters (the whole id in the cell's title). */
export const shortControllerId = (id: string) => id.slice(0, 8);

const isolationParts = { users: 'own users', filesystem: 'own filesystem view', memory: 'memory limits', cpu: 'CPU limits', pids: 'task limits', network: 'own network' } as const;

/** What the Node boxes its games with, in words; a missing part is named by the ISOLATION_UNAVAILABLE condition. */
export function formatIsolation(isolation: Node['status']['isolation']): string {
  if (!isolation) return 'Not reported yet';
  const parts = Object.keys(isolationParts) as (keyof typeof isolationParts)[];
  const held = parts.filter((part) => isolation[part] === true).map((part) => isolationParts[part]);
  if (held.length === 0) return 'None: games run as the Agent\'s user';
  const uids = isolation.gameUids ? ` (uids ${isolation.gameUids})` : '';
  return held.length === parts.length ? `Every game in its own box: ${held.join(', ')}${uids}` : `Partial: ${held.join(', ')}${uids}`;
}

/** The Java installations the Agent found, lowest major first: a server that needs Java N starts on the lowest major ≥ N. */
export function javasOf(runtimes: Node['status']['runtimes']): NonNullable<Node['status']['runtimes']> | string {
  if (!runtimes) return 'Not reported yet';
  const javas = runtimes.filter((r) => r.name === 'java').sort((a, b) => a.major - b.major);
  return javas.length > 0 ? javas : 'None found: servers that need Java get RUNTIME_MISSING here';
}
