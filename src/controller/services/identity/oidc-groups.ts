import type { OidcTeamMapping } from './oidc-settings.js';

/** The groups claim as a list: providers send an array of names, some a single name. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : [];
}

/**
 * What the user's groups give in each team the mappings name: the roles of every mapping whose
 * group the user is in, or `undefined` when none is (the user must not be a member there).
 */
export function mappedMemberships(mappings: OidcTeamMapping[], groups: string[]): Map<string, string[] | undefined> {
  const held = new Set(groups);
  const result = new Map<string, string[] | undefined>();
  for (const m of mappings) {
    const roles = result.get(m.teamId);
    if (!held.has(m.group)) {
      if (!result.has(m.teamId)) result.set(m.teamId, undefined);
      continue;
    }
    result.set(m.teamId, [...new Set([...(roles ?? []), ...m.roleIds])]);
  }
  return result;
}

const usernameChars = /[^A-Za-z0-9_.-]+/g;

/**
 * A username from the provider's claims: `preferred_username`, else the email's local part, cut to
 * what usernames allow (letters, digits, `_.-`, starting with a letter or digit).
 */
export function baseUsername(claims: Record<string, unknown>): string {
  const preferred = typeof claims.preferred_username === 'string' ? claims.preferred_username : '';
  const email = typeof claims.email === 'string' ? claims.email.split('@')[0] : '';
  for (const candidate of [preferred, email]) {
    const cleaned = candidate.replace(usernameChars, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56);
    if (cleaned) return cleaned;
  }
  return 'user';
}
