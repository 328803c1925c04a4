import { maxCursorLength } from '../core/cursor-limit.js';
import { invalidRequest } from '../core/errors.js';

/** Opaque cursor: the sort key of the last item of the previous page, base64url-wrapped and versioned. */

export function encodeCursor(key: string | number): string {
  return Buffer.from(JSON.stringify({ v: 1, k: key })).toString('base64url');
}

function decodeCursor(cursor: string): string | number {
  if (cursor.length > maxCursorLength) throw invalidRequest(`cursor: at most ${maxCursorLength} characters.`);
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; k?: unknown };
    if (parsed.v === 1 && (typeof parsed.k === 'string' || typeof parsed.k === 'number')) return parsed.k;
  } catch {
    // fall through to the one error below: a cursor is either ours or invalid
  }
  throw invalidRequest('cursor: not a cursor this API issued.');
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * Runs one page query: asks for limit + 1 items after the cursor's key, so the presence of a
 * next page is known without a count, and the next cursor is the last returned item's key.
 * `isKey` refuses a well-formed cursor whose key cannot come from this list (another list's
 * cursor, or a forged one), which would otherwise page from a meaningless place or crash.
 */
export async function paginate<T, K extends string | number = string>(
  request: { limit: number; cursor?: string },
  fetch: (afterKey: K | undefined, limit: number) => Promise<T[]>,
  keyOf: (item: T) => K,
  isKey: (key: string | number) => key is K = (key): key is K => typeof key === 'string',
): Promise<Page<T>> {
  let after: K | undefined;
  if (request.cursor !== undefined) {
    const key = decodeCursor(request.cursor);
    if (!isKey(key)) throw invalidRequest('cursor: not a cursor of this list.');
    after = key;
  }
  const rows = await fetch(after, request.limit + 1);
  if (rows.length <= request.limit) return { items: rows };
  const items = rows.slice(0, request.limit);
  return { items, nextCursor: encodeCursor(keyOf(items[items.length - 1])) };
}
