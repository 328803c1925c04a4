import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MiB = 1024 * 1024;

/**
 * Writes a world of about `totalBytes` straight into a server's root on its Node (as the game
 * would): region files of at most 8 MiB of random bytes (they do not compress), plus level.dat.
 * Answers the relative paths written.
 */
export async function writeWorld(root: string, totalBytes: number, fileBytes = 8 * MiB): Promise<string[]> {
  const region = join(root, 'world', 'region');
  await mkdir(region, { recursive: true });
  const paths = ['world/level.dat'];
  await writeFile(join(root, paths[0]), randomBytes(4096));
  for (let i = 0, left = totalBytes; left > 0; i++, left -= fileBytes) {
    const path = `world/region/r.${i}.0.mca`;
    await writeFile(join(root, path), randomBytes(Math.min(fileBytes, left)));
    paths.push(path);
  }
  return paths;
}
