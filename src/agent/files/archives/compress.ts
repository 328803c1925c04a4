import { lstat, statfs } from 'node:fs/promises';
import { archiveFormatOf, writableFormats, writableNames } from '../../../shared/archive-format.js';
import { AgentError } from '../../errors.js';
import type { GameIdentity } from '../../isolation/game-identity.js';
import { errnoOf, replaceFileIn, withPlace } from '../beneath.js';
import { archiveSources } from './archive-sources.js';
import { archiveStream } from './archive-writer.js';

export interface CompressInput {
  root: string;
  /** Files and directories to put in the archive, relative to the root. */
  paths: readonly string[];
  /** The archive to write, relative to the root; it must not exist yet. */
  into: string;
  owner?: GameIdentity | null;
  /** Bytes the server's files may still grow by under its disk limit; undefined: no limit but the file system's. */
  room?: number;
  hidden?: string;
  /** Told of the bytes written so far, as they grow. */
  progress(bytes: number): void;
  signal?: AbortSignal;
}

/**
 * Writes an archive of `paths` to `into` through the files API's walk: into a temporary file
 * renamed into place only when whole, counted against the disk limit as it grows. The archive's
 * name says its format (zip, tar or tar.gz).
 */
export async function compressArchive(input: CompressInput): Promise<{ bytes: number; entries: number }> {
  const format = archiveFormatOf(input.into);
  if (!format || !writableFormats.includes(format) || format === 'tar.zst') throw new AgentError('INVALID_REQUEST', `into: name the archive with one of ${writableNames}.`);
  const sources = await archiveSources(input.root, input.paths, input.hidden);
  const free = await statfs(input.root).then((s) => s.bavail * s.bsize).catch(() => Number.POSITIVE_INFINITY);
  const room = Math.min(input.room ?? Number.POSITIVE_INFINITY, free);
  let bytes = 0;
  await withPlace(input.root, input.into, 'write', async (place) => {
    if (place.isRoot) throw new AgentError('INVALID_PATH', 'into: names the server\'s root, not a file.');
    const existing = await lstat(place.path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (existing) throw new AgentError('ALREADY_EXISTS', `into: ${place.relative} already exists.`);
    await replaceFileIn(place.dir, place.name, 0o644, input.owner, async (file) => {
      const stream = archiveStream(input.root, format, sources);
      try {
        // Left early, the stream is destroyed below without an error: an AbortError there would have no listener.
        for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
          input.signal?.throwIfAborted();
          bytes += chunk.length;
          if (bytes > room) throw new AgentError('DISK_QUOTA_EXCEEDED', `The archive would pass the server's disk limit (resources.diskBytes, or the disk's free space): ${Math.max(room, 0)} bytes were left.`);
          await file.write(chunk, 0, chunk.length, null);
          input.progress(bytes);
        }
      } finally {
        stream.destroy();
      }
    });
  });
  return { bytes, entries: sources.length };
}
