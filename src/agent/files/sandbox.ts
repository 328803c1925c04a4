import { AgentError } from '../errors.js';

/** The installed software: readable through the files API, never changed by it. */
export const protectedDir = '.cairn';
/** Longest path the files API accepts, in characters. */
export const maxPathLength = 4096;

/** Reads follow a final symlink that stays inside the root; writes act on the final entry itself. */
export type PathAccess = 'read' | 'write';

const invalid = (message: string) => new AgentError('INVALID_PATH', message);

/**
 * Checks a client's path text without touching the disk and returns its segments: no NUL or
 * other control characters, no absolute paths, no backslashes (another platform's separators),
 * no `..` anywhere; `.` and empty segments are dropped. The empty list names the root.
 */
export function pathSegments(path: string): string[] {
  if (typeof path !== 'string' || path.length === 0) throw invalid('path: give a path relative to the server\'s root (`.` is the root).');
  if (path.length > maxPathLength) throw invalid(`path: longer than ${maxPathLength} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) throw invalid('path: control characters (NUL, line breaks, ...) are not allowed.');
  if (path.includes('\\')) throw invalid('path: use `/` as the separator; backslashes are not allowed.');
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) throw invalid('path: must be relative to the server\'s root, not absolute.');
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.some((s) => s === '..')) throw invalid('path: `..` is not allowed.');
  return segments;
}
