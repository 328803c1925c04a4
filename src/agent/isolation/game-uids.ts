/** A range of uids (and the same gids) the Agent gives games: `--game-uids FIRST-LAST`. */
export interface UidRange {
  first: number;
  last: number;
}

export const defaultGameUids: UidRange = { first: 200_000, last: 299_999 };

/** The highest uid a range may hold: 2^32-1 is the kernel's "no uid". */
export const maxGameUid = 4_294_967_294;

export const formatGameUids = (range: UidRange) => `${range.first}-${range.last}`;

/** The Agent does not start on this range: the host, or another Agent on it, already gives some of its ids. */
export class GameUidsRefusedError extends Error {
  override readonly name = 'GameUidsRefusedError';
}

export const gameUidsRule = 'FIRST-LAST with 1000 <= FIRST <= LAST < 4294967295';

/**
 * `FIRST-LAST` as a range, or undefined. Below 1000 are the system's own accounts; 2^32-1 is the
 * kernel's "no uid".
 */
export function parseGameUids(raw: string): UidRange | undefined {
  const match = /^(\d{1,10})-(\d{1,10})$/.exec(raw.trim());
  if (!match) return undefined;
  const range = { first: Number(match[1]), last: Number(match[2]) };
  return range.first >= 1000 && range.first <= range.last && range.last <= maxGameUid ? range : undefined;
}

/** The lowest uid of the range no server holds; undefined when every one is taken. */
export function lowestFreeUid(range: UidRange, taken: ReadonlySet<number>): number | undefined {
  for (let uid = range.first; uid <= range.last; uid++) if (!taken.has(uid)) return uid;
  return undefined;
}
