import { constants, createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { at, chownHandle, errnoOf, fileReadFlags, makeDirectoryIn, replaceFileIn, withPlace } from './beneath.js';
import { pathSegments } from './sandbox.js';

/**
 * The Agent's own reads and writes of files in a server's root (managed config, the network's
 * secret): by the files API's walk, so a directory the game swapped for a symlink leading out
 * (`config` -> /etc) is refused rather than written through by the root Agent.
 */

/** The file's text; empty when there is none (nor its directory). A symlink at the file is not read through (it may lead out). */
export async function readInRoot(serverDir: string, file: string): Promise<string> {
  const text = withPlace(serverDir, file, 'write', async (place) => {
    const handle = await open(place.path, fileReadFlags).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ELOOP') return undefined;
      throw e;
    });
    if (!handle) return '';
    try {
      return (await handle.stat()).isFile() ? await handle.readFile('utf8') : '';
    } finally {
      await handle.close();
    }
  });
  return text.catch((e: unknown) => {
    if (e instanceof AgentError && e.code === 'NOT_FOUND') return '';
    throw e;
  });
}

/** Creates the directories of `file` that are missing (owned by `owner`), each inside the one before. */
async function makeParents(serverDir: string, file: string, owner: GameIdentity | null | undefined): Promise<void> {
  const dirs = pathSegments(file).slice(0, -1);
  for (let depth = 1; depth <= dirs.length; depth++) {
    await withPlace(serverDir, dirs.slice(0, depth).join('/'), 'write', async (place) => {
      await makeDirectoryIn(place.dir, place.name, owner).catch((e: unknown) => {
        if (errnoOf(e) !== 'EEXIST') throw e;
      });
    });
  }
}

/** Replaces the file atomically (a symlink at it is replaced, never written through), owned by `owner`. */
export async function writeInRoot(serverDir: string, file: string, content: string, options: { mode?: number; owner?: GameIdentity | null } = {}): Promise<void> {
  await makeParents(serverDir, file, options.owner);
  await withPlace(serverDir, file, 'write', (place) => replaceFileIn(place.dir, place.name, options.mode ?? 0o644, options.owner, (handle) => handle.writeFile(content)));
}

/** Writes `file` only when there is none (nor a link by its name): a template's seed, never overwriting the game's. */
export async function createInRoot(serverDir: string, file: string, content: string, owner?: GameIdentity | null): Promise<void> {
  await makeParents(serverDir, file, owner);
  await withPlace(serverDir, file, 'write', async (place) => {
    const handle = await open(at(place.dir, place.name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644).catch((e: unknown) => {
      if (errnoOf(e) === 'EEXIST') return undefined;
      throw e;
    });
    if (!handle) return;
    try {
      await handle.writeFile(content);
      await chownHandle(handle, owner);
    } finally {
      await handle.close();
    }
  });
}

/** Replaces `file` with a copy of `source` (a file of the Agent's own), by the walk: a link at it or on the way is never followed. */
export async function copyIntoRoot(serverDir: string, file: string, source: string, options: { mode?: number; owner?: GameIdentity | null } = {}): Promise<void> {
  await makeParents(serverDir, file, options.owner);
  await withPlace(serverDir, file, 'write', (place) => replaceFileIn(place.dir, place.name, options.mode ?? 0o644, options.owner, async (handle) => {
    for await (const chunk of createReadStream(source)) await handle.write(chunk as Buffer);
  }));
}
