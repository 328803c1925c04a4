import { readFile, rename, writeFile } from 'node:fs/promises';
import type { SavedHistory, UsagePoint } from './usage-history.js';

/** Where a server's usage history waits between two runs of the Agent: beside its root, never in it (so it neither migrates nor is backed up). */
export const historyFileName = 'usage-history.json';

const formatVersion = 1;

/** A sample as saved: `[atMs, cpuMillis, memoryBytes, players, playersMax]`, a fifth of the size of the object. */
type SavedPoint = [number, number, number, number, number];

const pack = (points: readonly UsagePoint[]): SavedPoint[] => points.map((p) => [p.atMs, p.cpuMillis, p.memoryBytes, p.players, p.playersMax]);

function unpack(value: unknown, what: string): UsagePoint[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value.map((entry: unknown) => {
    if (!Array.isArray(entry) || entry.length !== 5 || !entry.every((n) => typeof n === 'number' && Number.isFinite(n))) throw new Error(`${what} holds a sample that is not five numbers`);
    const [atMs, cpuMillis, memoryBytes, players, playersMax] = entry as SavedPoint;
    return { atMs, cpuMillis, memoryBytes, players, playersMax };
  });
}

/** Writes the history whole, through a temporary file: a stop halfway leaves the previous file. */
export async function saveHistory(file: string, history: SavedHistory): Promise<void> {
  const body = { version: formatVersion, intervalMs: history.intervalMs, fine: pack(history.fine), coarse: pack(history.coarse), pending: pack(history.pending) };
  await writeFile(`${file}.tmp`, JSON.stringify(body), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/** The history saved in `file`; undefined when there is none. A file that is not one throws, saying why. */
export async function loadHistory(file: string): Promise<SavedHistory | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const body = JSON.parse(text) as Record<string, unknown>;
  if (body.version !== formatVersion) throw new Error(`format ${JSON.stringify(body.version)} is not ${formatVersion}`);
  if (typeof body.intervalMs !== 'number' || !(body.intervalMs > 0)) throw new Error('intervalMs is not a positive number');
  return { intervalMs: body.intervalMs, fine: unpack(body.fine, 'fine'), coarse: unpack(body.coarse, 'coarse'), pending: unpack(body.pending, 'pending') };
}
