import { constants, createReadStream } from 'node:fs';
import { lstat, open, rename } from 'node:fs/promises';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { at, chownHandle, errnoOf, replaceFileIn, withPlace, type Place } from './beneath.js';
import type { HiddenFile } from './files.js';

/**
 * The checks of a write at `place` (the walk already refused `.cairn` and links leading out): not
 * the root, not the forwarding secret's file, not a directory. Answers what the file there holds
 * on disk, which its replacement frees.
 */
async function writableTarget(place: Place, hidden: HiddenFile, directoryCode = 'NOT_A_FILE'): Promise<number> {
  if (place.isRoot) throw new AgentError('INVALID_PATH', 'path: names the server\'s root, not a file.');
  if (hidden !== undefined && place.resolved.join('/') === hidden) throw new AgentError('READ_ONLY', `path: ${place.relative} holds the network's forwarding secret; the files API never writes it.`);
  const existing = await lstat(place.path).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  });
  if (existing?.isDirectory()) throw new AgentError(directoryCode, `path: ${place.relative} is a directory.`);
  return existing?.isFile() ? existing.blocks * 512 : 0;
}

/** At an upload's begin: the path is one the upload may complete to now (its directory exists). Answers the bytes a file there holds. */
export function checkUploadTarget(root: string, path: string, hidden: HiddenFile): Promise<number> {
  return withPlace(root, path, 'write', (place) => writableTarget(place, hidden));
}

/** `growth` against `room` (undefined: no limit), naming the field of the upload's begin. */
export function refuseOverLimit(growth: number, room: number | undefined): void {
  if (room === undefined || growth <= room) return;
  throw new AgentError('DISK_QUOTA_EXCEEDED', `size: the server's files would pass its disk limit (resources.diskBytes): ${Math.max(room, 0)} bytes are left and the upload needs ${growth}.`);
}

export interface PlaceUploadInput {
  root: string;
  path: string;
  /** The whole upload, in the Agent's own directory outside the root. */
  part: string;
  size: number;
  owner?: GameIdentity | null;
  hidden?: HiddenFile;
  /** Bytes the server's files may still grow by; undefined: no limit. */
  room?: number;
}

/**
 * Moves a finished upload into the root by the files API's walk: the target is found again (no
 * link followed out, `.cairn` and the secret refused), the disk limit checked once more, the file
 * given to the server's user by fd, then renamed over the target, which replaces a symlink there
 * itself, never what it points to. When the root is on another file system the file is copied
 * to a temporary name beside the target and renamed. Answers by how much the server's files grew.
 */
export function placeUpload(input: PlaceUploadInput): Promise<number> {
  return withPlace(input.root, input.path, 'write', async (place) => {
    // A directory made there since the begin is a conflict to resolve (the upload waits whole), not a bad request.
    const growth = input.size - await writableTarget(place, input.hidden, 'ALREADY_EXISTS');
    refuseOverLimit(growth, input.room);
    const handle = await open(input.part, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      await handle.chmod(0o644);
      await chownHandle(handle, input.owner);
    } finally {
      await handle.close();
    }
    try {
      await rename(input.part, at(place.dir, place.name));
    } catch (e) {
      if (errnoOf(e) === 'EISDIR') throw new AgentError('ALREADY_EXISTS', `path: ${place.relative} became a directory during the upload.`);
      if (errnoOf(e) !== 'EXDEV') throw e;
      await replaceFileIn(place.dir, place.name, 0o644, input.owner, async (target) => {
        for await (const chunk of createReadStream(input.part)) await target.write(chunk as Buffer);
      });
    }
    return growth;
  });
}
