import { invalidRequest } from '../core/errors.js';

/**
 * Control and format characters (zero-width joiners, direction overrides), line and paragraph
 * separators, private-use and unassigned code points: none shows as itself, so a name holding one
 * reads the same as another name, or as a blank one. The schema's pattern stops only ASCII controls.
 */
const unprintable = /[\p{C}\p{Zl}\p{Zp}]/u;

/** The name a server is stored under: trimmed, never blank, printable only; else 400 naming `body.name`. */
export function serverName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw invalidRequest('body.name: must not be blank.');
  if (unprintable.test(name)) throw invalidRequest('body.name: printable characters only (no control, format or separator characters).');
  return name;
}

/** One team's names, ignoring case: what the store's unique index on `ServerDoc.nameKey` keeps apart. */
export const serverNameKey = (teamId: string, name: string) => `${teamId}/${name.toLowerCase()}`;
