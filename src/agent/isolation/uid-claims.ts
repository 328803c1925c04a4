import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSameProcessAlive, readProcStat } from '../../shared/proc-stat.js';
import { isNonNegativeInt, isObject, isPositiveInt } from '../runtime/guards.js';
import { readJsonFile, writeFileAtomic } from '../runtime/state-dir.js';
import { formatGameUids, GameUidsRefusedError, type UidRange } from './game-uids.js';

/** What one running Agent holds on its host: the uids its games get. */
interface UidClaim {
  pid: number;
  /** With the pid, the process's identity: a claim whose pid now names another process is stale. */
  startTicks: number;
  first: number;
  last: number;
  dataDir: string;
}

/** The Agent's claim, held until it stops. */
export interface HeldUidClaim {
  release(): Promise<void>;
}

function parseClaim(value: unknown): UidClaim | null {
  if (!isObject(value)) return null;
  const { pid, startTicks, first, last, dataDir } = value;
  if (!isPositiveInt(pid) || !isNonNegativeInt(startTicks) || !isNonNegativeInt(first) || !isNonNegativeInt(last) || typeof dataDir !== 'string') return null;
  return { pid, startTicks, first, last, dataDir };
}

const claimFileOf = (pid: number) => `agent-${pid}.json`;

/** The claims of live Agents but this one; stale files (their Agent is gone) are removed on the way. */
async function otherLiveClaims(dir: string): Promise<UidClaim[]> {
  const live: UidClaim[] = [];
  for (const name of (await readdir(dir)).filter((n) => /^agent-\d+\.json$/.test(n) && n !== claimFileOf(process.pid))) {
    const claim = parseClaim(await readJsonFile(join(dir, name)).catch(() => null));
    if (claim && (await isSameProcessAlive(claim.pid, claim.startTicks))) live.push(claim);
    else await rm(join(dir, name), { force: true });
  }
  return live;
}

/**
 * Claims `range` for this Agent in `dir` (one file per Agent: its pid, start time, range and data
 * dir), unless a live Agent holds some of it. The claim is written before the others are read, so
 * of two Agents starting at once on one range neither misses the other (both refuse, never both run).
 */
export async function claimGameUids(dir: string, dataDir: string, range: UidRange): Promise<HeldUidClaim> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, claimFileOf(process.pid));
  const claim: UidClaim = { pid: process.pid, startTicks: (await readProcStat(process.pid))?.startTicks ?? 0, ...range, dataDir };
  await writeFileAtomic(file, `${JSON.stringify(claim)}\n`);
  const taken = (await otherLiveClaims(dir)).find((other) => other.first <= range.last && range.first <= other.last);
  if (taken) {
    await rm(file, { force: true });
    throw new GameUidsRefusedError(
      `--game-uids ${formatGameUids(range)} overlaps ${formatGameUids(taken)}, the range of the Agent of data dir ${taken.dataDir} (pid ${taken.pid}) on this host: `
      + 'two servers of different Agents would share an owner on disk. Give each Agent its own --game-uids.',
    );
  }
  return { release: () => rm(file, { force: true }) };
}
