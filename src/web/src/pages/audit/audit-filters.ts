// With its extension: the unit tests type-check this file under Node's module resolution.
import type { AuditQuery } from '../../api/types.js';

/** The filters of GET /audit-events as the form holds them (and the page's address keeps them). */
export interface AuditFilters {
  actorUserId: string;
  targetKind: string;
  targetId: string;
  action: string;
  outcome: '' | NonNullable<AuditQuery['outcome']>;
  /** `datetime-local` values, local time. */
  since: string;
  until: string;
}

export const filterNames = ['actorUserId', 'targetKind', 'targetId', 'action', 'outcome', 'since', 'until'] as const;
export const noFilters: AuditFilters = { actorUserId: '', targetKind: '', targetId: '', action: '', outcome: '', since: '', until: '' };

export function filtersFrom(params: URLSearchParams): AuditFilters {
  const f = { ...noFilters };
  for (const name of filterNames) (f as Record<string, string>)[name] = params.get(name) ?? '';
  return f;
}

export function paramsOf(filters: AuditFilters): Record<string, string> {
  return Object.fromEntries(filterNames.filter((n) => filters[n].trim()).map((n) => [n, filters[n].trim()]));
}

/** A `datetime-local` value → the API's date-time; undefined when empty, null when not a time. */
export function localToIso(value: string): string | undefined | null {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The API's query for these filters; empty ones are left out. */
export function queryOf(f: AuditFilters): AuditQuery {
  const q: AuditQuery = {};
  if (f.actorUserId) q.actorUserId = f.actorUserId;
  if (f.targetKind) q.targetKind = f.targetKind;
  if (f.targetId) q.targetId = f.targetId;
  if (f.action) q.action = f.action;
  if (f.outcome) q.outcome = f.outcome;
  const since = localToIso(f.since);
  const until = localToIso(f.until);
  if (since) q.since = since;
  if (until) q.until = until;
  return q;
}

/** Details compactly: `key=value` with nested values as JSON, long ones cut. */
export function detailPairs(details: Record<string, unknown>): [string, string][] {
  return Object.entries(details).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return [key, text.length > 120 ? `${text.slice(0, 119)}…` : text];
  });
}

/** The kind of record a detail's key holds the id of (`sourceServerId` → `server`), to show its name instead. */
export function detailIdKind(key: string): 'server' | 'team' | 'node' | 'user' | undefined {
  const match = /(Server|server|Team|team|Node|node|User|user)Id$/.exec(key);
  return match ? (match[1].toLowerCase() as 'server' | 'team' | 'node' | 'user') : undefined;
}
