import { constants } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { at, errnoOf } from '../files/beneath.js';

const dirFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Entries looked at between two yields to the event loop: a big tree never holds up the link. */
const entriesPerYield = 256;

/** Entries that vanish or change kind while the game runs are skipped, not failures of the walk. */
const gone = (e: unknown) => ['ENOENT', 'ENOTDIR', 'ELOOP'].includes(errnoOf(e) ?? '');

interface Walk {
  bytes: number;
  seen: number;
  /** Inodes with more than one link already counted (`dev:ino`): a hard link holds no second copy. */
  linked: Set<string>;
}

/**
 * The bytes `root` and everything under it hold on disk (allocated blocks, as a quota counts them,
 * so a sparse file counts what it really takes). The walk opens each directory relative to its
 * parent's descriptor and never follows a symlink, so a game swapping a directory for a link
 * cannot make it count (or reach) anything outside its root. It holds one descriptor per level
 * and yields to the event loop every few hundred entries. A missing root holds 0 bytes.
 */
export async function treeBytes(root: string): Promise<number> {
  const handle = await open(root, dirFlags).catch((e: unknown) => {
    if (gone(e)) return undefined;
    throw e;
  });
  if (!handle) return 0;
  const walk: Walk = { bytes: 0, seen: 0, linked: new Set() };
  try {
    walk.bytes += (await handle.stat()).blocks * 512;
    await walkDir(handle, walk);
  } finally {
    await handle.close();
  }
  return walk.bytes;
}

async function walkDir(dir: FileHandle, walk: Walk): Promise<void> {
  const names = await readdir(at(dir)).catch((e: unknown) => {
    if (gone(e)) return [] as string[];
    throw e;
  });
  for (const name of names) {
    if (++walk.seen % entriesPerYield === 0) await yieldToLoop();
    const entry = await lstat(at(dir, name)).catch((e: unknown) => {
      if (gone(e)) return undefined;
      throw e;
    });
    if (!entry) continue;
    if (entry.nlink > 1 && !entry.isDirectory()) {
      const key = `${entry.dev}:${entry.ino}`;
      if (walk.linked.has(key)) continue;
      walk.linked.add(key);
    }
    walk.bytes += entry.blocks * 512;
    if (!entry.isDirectory()) continue;
    const sub = await open(at(dir, name), dirFlags).catch((e: unknown) => {
      if (gone(e)) return undefined;
      throw e;
    });
    if (!sub) continue;
    try {
      await walkDir(sub, walk);
    } finally {
      await sub.close();
    }
  }
}
