import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { softwareDir } from '../../shared/backup/manifest.js';

/** Moves every entry named from one directory to another (both on one filesystem); returns those moved. */
async function moveAll(names: readonly string[], from: string, to: string, moved: string[]): Promise<void> {
  for (const name of names) {
    await rename(join(from, name), join(to, name));
    moved.push(name);
  }
}

/**
 * Makes `stage`'s entries the content of `root`, keeping `root/.cairn`: everything else in `root`
 * moves to `replaced` (which must not exist), then the stage's entries move in. Only renames, so
 * a world of any size swaps at once. A failure midway moves everything back where it was.
 */
export async function swapIn(stage: string, root: string, replaced: string): Promise<void> {
  await mkdir(root, { recursive: true });
  await mkdir(replaced);
  const old = (await readdir(root)).filter((name) => name !== softwareDir);
  const incoming = await readdir(stage);
  const movedOut: string[] = [];
  const movedIn: string[] = [];
  try {
    await moveAll(old, root, replaced, movedOut);
    await moveAll(incoming, stage, root, movedIn);
  } catch (e) {
    await moveAll(movedIn, root, stage, []);
    await moveAll(movedOut, replaced, root, []);
    throw e;
  }
}
