import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import { serverRoot } from '../reconciler/server-paths.js';
import { writeFileAtomic } from '../runtime/state-dir.js';
import { checkServerId } from './backup-host.js';
import { exists, finishCommit, readJournal, swapPathsOf } from './stage-swap.js';

/**
 * Stage ids whose commit completed, one file each: a Controller that lost a commit's answer (it
 * restarted, or this Agent did) asks with StageCommitted. Kept long enough for any Controller
 * restart, then pruned.
 */
export const commitsDir = (dataDir: string) => join(dataDir, 'stage-commits');

const keepMs = 30 * 24 * 3600_000;

export async function recordCommitted(dataDir: string, stageId: string, serverId: string): Promise<void> {
  await mkdir(commitsDir(dataDir), { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(commitsDir(dataDir), stageId), JSON.stringify({ serverId, at: new Date().toISOString() }));
}

export function wasCommitted(dataDir: string, stageId: string): Promise<boolean> {
  return exists(join(commitsDir(dataDir), stageId));
}

async function pruneCommitted(dataDir: string, now: number): Promise<void> {
  const names = await readdir(commitsDir(dataDir)).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(commitsDir(dataDir), name);
    const { mtimeMs } = await stat(path);
    if (now - mtimeMs > keepMs) await rm(path, { force: true });
  }
}

/**
 * At Agent start, before any server can start: every commit a crash cut off is finished (the
 * stage's files are complete once its commit begins, so forward is always possible), and only
 * then may its stage, with what it moved aside, be removed. A commit that cannot be finished
 * stops the Agent's start rather than let a server run on half its files.
 */
export async function finishInterruptedCommits(dataDir: string, stages: string, logger: Logger): Promise<void> {
  await pruneCommitted(dataDir, Date.now());
  const ids = (await exists(stages)) ? await readdir(stages) : [];
  for (const stageId of ids) {
    const stageDir = join(stages, stageId);
    const journal = await readJournal(stageDir);
    if (!journal) continue;
    const serverId = checkServerId(journal.serverId);
    const paths = swapPathsOf(stageDir, serverRoot(dataDir, serverId));
    // Recorded means every rename was done and synced; only the journal's removal was cut off.
    const committed = await wasCommitted(dataDir, stageId);
    if (committed) await rm(paths.journal, { force: true });
    else await finishCommit(journal, paths, () => recordCommitted(dataDir, stageId, serverId));
    logger.warn({ event: 'restore_commit_finished', stageId, serverId, alreadyRecorded: committed }, 'a stage commit cut off by a crash was finished; the server has the stage\'s files');
  }
}
