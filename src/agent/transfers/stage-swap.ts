import { lstat, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { softwareDir } from '../../shared/backup/manifest.js';
import { readJsonFile, writeFileAtomic } from '../runtime/state-dir.js';

/**
 * A commit in progress, written (durably) before its first rename: whoever finds it at Agent start
 * finishes the swap, since a stage's files are all complete once its commit begins.
 */
export interface CommitJournal {
  serverId: string;
  /** Entries of the root moved aside into `replaced` first, in order. */
  old: string[];
  /** Then the stage's entries moved into the root, in order. */
  incoming: string[];
}

/** A stage's files, the root they go into, and where its commit keeps its journal and what it moved aside. */
export interface SwapPaths {
  stageDir: string;
  files: string;
  root: string;
  replaced: string;
  journal: string;
}

export const journalOf = (stageDir: string) => join(stageDir, 'commit.json');

export const swapPathsOf = (stageDir: string, root: string): SwapPaths => ({
  stageDir, files: join(stageDir, 'files'), root, replaced: join(stageDir, 'replaced'), journal: journalOf(stageDir),
});

/** Called after every rename (tests kill a commit at chosen points with it). */
export type OnMoved = (count: number) => void;

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// lstat: a symlink among the root's entries is an entry like any other (rename moves the link itself).
export const exists = (path: string) => lstat(path).then(() => true, (e: unknown) => {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
  throw e;
});

/**
 * Every rename of the journal not done yet, in order; so it can run again after a crash at any
 * point. An old entry is moved when `replaced` lacks it (all old ones move before the first
 * incoming one, so a root entry of that name is still the old one); an incoming one while the
 * stage still has it.
 */
async function moveRemaining(journal: CommitJournal, paths: SwapPaths, onMoved?: OnMoved): Promise<void> {
  let count = 0;
  for (const name of journal.old) {
    if (!(await exists(join(paths.replaced, name))) && (await exists(join(paths.root, name)))) {
      await rename(join(paths.root, name), join(paths.replaced, name));
    }
    onMoved?.(++count);
  }
  for (const name of journal.incoming) {
    if (await exists(join(paths.files, name))) await rename(join(paths.files, name), join(paths.root, name));
    onMoved?.(++count);
  }
  // The renames must be on disk before the journal goes, or a power cut could undo some of them unseen.
  await syncDir(paths.replaced);
  await syncDir(paths.files);
  await syncDir(paths.root);
}

/** Undoes the renames done so far (a failure while this process still runs). */
async function moveBack(journal: CommitJournal, paths: SwapPaths): Promise<void> {
  for (const name of [...journal.incoming].reverse()) {
    if (!(await exists(join(paths.files, name))) && (await exists(join(paths.root, name)))) await rename(join(paths.root, name), join(paths.files, name));
  }
  for (const name of [...journal.old].reverse()) {
    if (await exists(join(paths.replaced, name))) await rename(join(paths.replaced, name), join(paths.root, name));
  }
}

async function dropJournal(paths: SwapPaths): Promise<void> {
  await unlink(paths.journal);
  await syncDir(paths.stageDir);
}

/**
 * Makes the stage's entries the content of `root`, keeping `root/.cairn`: everything else in
 * `root` moves to `replaced`, then the stage's entries move in. Only renames, so a world of any
 * size swaps at once. The journal is in place before the first rename and goes after the last, once
 * `committed` has recorded the swap: a crash in between is finished by `finishCommit` at the next
 * start. A failure midway (this process alive) moves everything back where it was.
 */
export async function swapIn(input: { serverId: string; paths: SwapPaths; committed: () => Promise<void>; onMoved?: OnMoved }): Promise<void> {
  const { paths } = input;
  await mkdir(paths.root, { recursive: true });
  await mkdir(paths.replaced, { mode: 0o700 });
  const journal: CommitJournal = {
    serverId: input.serverId,
    old: (await readdir(paths.root)).filter((name) => name !== softwareDir),
    incoming: await readdir(paths.files),
  };
  await writeFileAtomic(paths.journal, JSON.stringify(journal));
  await syncDir(paths.stageDir);
  try {
    await moveRemaining(journal, paths, input.onMoved);
  } catch (e) {
    await moveBack(journal, paths);
    await dropJournal(paths);
    throw e;
  }
  await input.committed();
  await dropJournal(paths);
}

/** The journal a commit left in the stage, or null when none was begun (or it completed). */
export async function readJournal(stageDir: string): Promise<CommitJournal | null> {
  const path = journalOf(stageDir);
  const value = await readJsonFile(path) as CommitJournal | null;
  if (value === null) return null;
  const names = (list: unknown) => Array.isArray(list) && list.every((n) => typeof n === 'string' && n !== '' && !n.includes('/') && n !== '.' && n !== '..');
  if (typeof value.serverId !== 'string' || !names(value.old) || !names(value.incoming)) throw new Error(`${path}: not a commit journal`);
  return value;
}

/** Completes a commit a crash interrupted (see `swapIn`); its stage may be removed after. */
export async function finishCommit(journal: CommitJournal, paths: SwapPaths, committed: () => Promise<void>): Promise<void> {
  await mkdir(paths.replaced, { recursive: true, mode: 0o700 });
  await moveRemaining(journal, paths);
  await committed();
  await dropJournal(paths);
}
