import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatGameUids, GameUidsRefusedError, maxGameUid, type UidRange } from './game-uids.js';

/** An id, or a range of them, the host already gives someone: a user, a group, a user's subordinate ids. */
export interface HostIdHolder {
  /** In words, for the refusal: `user "minecraft" (uid 250000, /etc/passwd)`. */
  holder: string;
  range: UidRange;
}

type IdFile = 'passwd' | 'group' | 'subuid' | 'subgid';

const wholeId = (text: string | undefined) => (text !== undefined && /^\d{1,10}$/.test(text) ? Number(text) : undefined);

/**
 * The holders of one of these files' text: `name:x:ID:...` in passwd and group, `name:FIRST:COUNT`
 * in subuid and subgid. A malformed line holds nothing (the tools that read these skip it too).
 */
export function parseIdFile(file: IdFile, text: string, path: string): HostIdHolder[] {
  const holders: HostIdHolder[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(':');
    if (fields.length < 3 || fields[0] === '' || fields[0].startsWith('#')) continue;
    const [name] = fields;
    if (file === 'passwd' || file === 'group') {
      const id = wholeId(fields[2]);
      const kind = file === 'passwd' ? 'user' : 'group';
      if (id !== undefined) holders.push({ holder: `${kind} "${name}" (${file === 'passwd' ? 'uid' : 'gid'} ${id}, ${path})`, range: { first: id, last: id } });
      continue;
    }
    const first = wholeId(fields[1]);
    const count = wholeId(fields[2]);
    if (first === undefined || count === undefined || count === 0) continue;
    const range = { first, last: first + count - 1 };
    holders.push({ holder: `"${name}"'s subordinate ids ${formatGameUids(range)} (${path})`, range });
  }
  return holders;
}

const overlaps = (a: UidRange, b: UidRange) => a.first <= b.last && b.first <= a.last;

/** The holders whose ids fall in `range`. */
export function holdersIn(range: UidRange, holders: readonly HostIdHolder[]): HostIdHolder[] {
  return holders.filter((h) => overlaps(range, h.range));
}

/** The lowest range of the same size from `range.first` up that no holder touches; undefined when none fits below 2^32-1. */
export function freeRangeLike(range: UidRange, holders: readonly HostIdHolder[]): UidRange | undefined {
  const size = range.last - range.first;
  const candidate = { first: range.first, last: range.last };
  for (;;) {
    if (candidate.last > maxGameUid) return undefined;
    const blocking = holdersIn(candidate, holders);
    if (blocking.length === 0) return candidate;
    candidate.first = Math.max(...blocking.map((h) => h.range.last)) + 1;
    candidate.last = candidate.first + size;
  }
}

/** Every holder of the host's accounts files in `etcDir`; a file that is not there (no subuid) holds nothing. */
export async function readHostIds(etcDir: string): Promise<HostIdHolder[]> {
  const files: IdFile[] = ['passwd', 'group', 'subuid', 'subgid'];
  const texts = await Promise.all(files.map((file) => readFile(join(etcDir, file), 'utf8').catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  })));
  return files.flatMap((file, i) => parseIdFile(file, texts[i], join(etcDir, file)));
}

/**
 * Refuses a range some of whose ids the host already gives (a user, a group, subordinate ids of
 * containers): a game would own that account's files, and it the game's. Names a free range.
 */
export async function refuseHeldIds(range: UidRange, etcDir: string): Promise<void> {
  const holders = await readHostIds(etcDir);
  const held = holdersIn(range, holders);
  if (held.length === 0) return;
  const named = held.slice(0, 3).map((h) => h.holder).join('; ') + (held.length > 3 ? `; and ${held.length - 3} more` : '');
  const free = freeRangeLike(range, holders);
  throw new GameUidsRefusedError(
    `--game-uids ${formatGameUids(range)} overlaps ids this host already gives: ${named}. `
    + (free ? `Give a range nobody holds, e.g. --game-uids ${formatGameUids(free)}.` : 'Give a range no user, group or subordinate range holds.'),
  );
}
