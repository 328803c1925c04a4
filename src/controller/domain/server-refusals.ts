import type { Caller } from '../core/caller.js';
import { DomainError, forbidden, invalidRequest } from '../core/errors.js';
import { isGlobalAdmin } from './permissions.js';
import type { Phase, ServerKind, ServerObserved, ServerSleep } from './server-spec.js';

/**
 * POST /servers makes game servers and POST /network/proxy the network's proxy: a template of
 * the other kind is refused naming the call that takes it.
 */
export function requireTemplateKind(kind: ServerKind, wanted: ServerKind): void {
  if (kind === wanted) return;
  throw invalidRequest(wanted === 'GAME_SERVER'
    ? 'body.software.template: a proxy is created with POST /network/proxy.'
    : 'body.software.template: not a proxy template; game servers are created with POST /servers.');
}

/** A new server joins the network only if its template's servers can. */
export function requireJoinableTemplate(template: { id: string; networkMember: boolean }): void {
  if (!template.networkMember) throw new DomainError('not_network_capable', `${template.id} servers cannot join the network.`);
}

/** A server joins the network later only as a game server whose template's servers can (the proxy serves the network). */
export function requireJoinable(kind: ServerKind, networkMember: boolean | undefined): void {
  if (kind === 'PROXY') throw new DomainError('not_network_capable', 'The proxy cannot join the network it serves.');
  if (!networkMember) throw new DomainError('not_network_capable', 'This server\'s template cannot join the network.');
}

/**
 * Sleep is decided on the player count, so only a game server whose template reports one sleeps: on
 * any other, an empty server could never be told from one whose count is unknown.
 */
export function requireSleepable(kind: ServerKind, template: { id: string; status?: unknown } | undefined, sleep: unknown): void {
  if (!sleep) return;
  if (kind === 'PROXY') throw invalidRequest('body.sleep: the proxy serves the network and never sleeps.');
  if (!template?.status) throw invalidRequest(`body.sleep: ${template?.id ?? 'this template\'s'} servers report no player count (template status.protocol), so they cannot sleep when empty.`);
}

/** `sleep` as stored: a join wakes the server unless told otherwise; null (off) stays null. */
export function sleepOf(input: { afterEmptySeconds: number; wakeOnJoin?: boolean } | null | undefined): ServerSleep | null | undefined {
  return input ? { afterEmptySeconds: input.afterEmptySeconds, wakeOnJoin: input.wakeOnJoin ?? true } : input;
}

/**
 * What a game may reach on private ranges and the Node is the operator's call, as the Agent's
 * `--game-egress-allow` is: only global administrators change a server's entries. Sending the
 * entries it has changes nothing, so a team's own tools may send them back.
 */
export function requireMaySetEgress(caller: Caller, current: readonly string[], next: readonly string[] | undefined): void {
  if (next === undefined || isGlobalAdmin(caller) || JSON.stringify(current) === JSON.stringify(next)) return;
  throw forbidden('body.network.egressAllow: only global administrators set where a server\'s game may connect beyond the internet.');
}

/**
 * Throws unless the server's install may be retried (POST /servers/{id}/reinstall): only a FAILED
 * server with nothing installed may (a failed workflow's files are not reinstalled over); a busy one gets `busy()`.
 */
export function requireReinstallable(doc: { phase: Phase; observed: Pick<ServerObserved, 'installed'> }, busy: () => DomainError): void {
  if (doc.phase === 'READY') throw new DomainError('invalid_transition', 'The server is READY: only a failed install is retried.');
  if (doc.phase !== 'FAILED') throw busy();
  if (doc.observed.installed) throw new DomainError('invalid_transition', 'The server\'s software is installed: only a failed install is retried.');
}
