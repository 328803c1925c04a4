import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArtifactSet, type ArtifactSetEntry, type ArtifactSetRefSpec } from '../../shared/artifact-set.js';
import { AgentError } from '../errors.js';
import { copyIntoRoot } from '../files/root-files.js';
import { deletePath } from '../files/files.js';

/** The verified copy of an artifact in the Node's download cache, fetched from the Controller when missing. */
export type CachedArtifact = (artifact: { sha256: string; size: number }) => Promise<string>;

/** Why a set could not be installed; the installer reports it as the install's failure. */
export class ArtifactSetError extends Error {}

/** The set's files, from its manifest (fetched and checked like any artifact). */
export async function readArtifactSet(ref: ArtifactSetRefSpec, cached: CachedArtifact): Promise<ArtifactSetEntry[]> {
  const parsed = parseArtifactSet(await readFile(await cached(ref), 'utf8'));
  if ('problem' in parsed) throw new ArtifactSetError(`the file set ${ref.sha256} is refused: ${parsed.problem}`);
  return parsed.files;
}

/** The paths a set placed last time, kept in `listFile`; none when there is no list. */
async function placedBefore(listFile: string): Promise<string[]> {
  try {
    return (JSON.parse(await readFile(listFile, 'utf8')) as { paths: string[] }).paths;
  } catch {
    return [];
  }
}

/**
 * Installs an installer's output under the server's software directory (the Agent's own, bound
 * read-only into the game's view), and removes what the last tree placed and this one does not, so
 * a loader update leaves no stale library on the class path.
 */
export async function installTree(software: string, files: readonly ArtifactSetEntry[], cached: CachedArtifact): Promise<void> {
  const listFile = join(software, 'tree-files.json');
  const wanted = new Set(files.map((f) => f.path));
  for (const stale of (await placedBefore(listFile)).filter((p) => !wanted.has(p))) await rm(join(software, stale), { force: true });
  for (const file of files) {
    const target = join(software, file.path);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await copyFile(await cached(file), target);
    await chmod(target, file.executable ? 0o755 : 0o644);
  }
  await writeFile(listFile, JSON.stringify({ paths: [...wanted] }));
}

/**
 * Places a modpack's files into the server's root by the files API's walk (a link the game left
 * never leads a file out), then removes what the last pack placed and this one does not; the
 * world and every file no pack placed stay. The list of what was placed is kept beside the root,
 * where the game cannot edit it.
 */
export async function installPack(root: string, software: string, files: readonly ArtifactSetEntry[], cached: CachedArtifact): Promise<void> {
  const listFile = join(software, 'pack-files.json');
  const before = await placedBefore(listFile);
  const wanted = new Set(files.map((f) => f.path));
  // Recorded first as both lists: an install cut off midway still knows every file it may have placed.
  await writeFile(listFile, JSON.stringify({ paths: [...new Set([...before, ...wanted])] }));
  for (const file of files) await copyIntoRoot(root, file.path, await cached(file), { mode: file.executable ? 0o755 : 0o644 });
  for (const stale of before.filter((p) => !wanted.has(p))) {
    await deletePath(root, stale).catch((e: unknown) => {
      if (!(e instanceof AgentError && e.code === 'NOT_FOUND')) throw e;
    });
  }
  await writeFile(listFile, JSON.stringify({ paths: [...wanted] }));
}
