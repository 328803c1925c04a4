import { lstat, statfs } from 'node:fs/promises';
import { archiveFormatOf, readableNames } from '../../../shared/archive-format.js';
import { AgentError, isAgentError } from '../../errors.js';
import type { GameIdentity } from '../../isolation/game-identity.js';
import { errnoOf, makeDirectoryIn, openRegularFile, replaceFileIn, withPlace } from '../beneath.js';
import { pathSegments } from '../sandbox.js';
import { readArchive, type ArchiveEntry } from './archive-reader.js';

export interface ExtractInput {
  root: string;
  /** The archive, relative to the root. */
  path: string;
  /** The directory to extract into, relative to the root; made when missing. */
  into: string;
  owner?: GameIdentity | null;
  /** Bytes the server's files may still grow by under its disk limit; undefined: no limit but the file system's. */
  room?: number;
  /** The forwarding secret's file (from the root): never written. */
  hidden?: string;
  /** Told of every entry once it is in place, with the bytes written so far. */
  progress(written: string, bytes: number): void;
  signal?: AbortSignal;
}

const refused = (entry: string, why: string, code = 'INVALID_PATH') => new AgentError(code, `entry ${JSON.stringify(entry)}: ${why}`);

/** The entry's path from `into`; the refusal names the entry. Links and special files are refused whatever they point to. */
function entrySegments(entry: ArchiveEntry): string[] {
  if (entry.kind === 'link') throw refused(entry.name, 'is a link (symbolic or hard); archives holding links are refused.');
  if (entry.kind === 'special') throw refused(entry.name, 'is a device, FIFO or other special file; such entries are refused.');
  try {
    return pathSegments(entry.name);
  } catch (e) {
    throw refused(entry.name, isAgentError(e) ? e.message.replace(/^path: /, '') : String(e));
  }
}

const quota = (room: number, needs: number) => new AgentError('DISK_QUOTA_EXCEEDED',
  `The archive unpacks to more than the server's files may grow by (resources.diskBytes, or the disk's free space): ${Math.max(room, 0)} bytes are left and it needs at least ${needs}.`);

/**
 * Extracts an archive inside the server's root through the files API's walk: every entry is
 * checked before it is written (no `..`, no absolute path, no control characters, no link, no
 * device), each file goes to a temporary name and is renamed into place when whole (a reader, or
 * an Agent killed meanwhile, never leaves half a file), and the bytes are counted as they inflate
 * against the disk limit. A zip's central directory is checked whole (names, kinds, the sum of
 * declared sizes) before anything is written; a tar is checked entry by entry as it streams.
 */
export async function extractArchive(input: ExtractInput): Promise<{ bytes: number; entries: number }> {
  const format = archiveFormatOf(input.path);
  if (!format) throw new AgentError('INVALID_REQUEST', `path: not an archive this Agent reads (${readableNames}).`);
  const into = pathSegments(input.into);
  const free = await statfs(input.root).then((s) => s.bavail * s.bsize).catch(() => Number.POSITIVE_INFINITY);
  const room = Math.min(input.room ?? Number.POSITIVE_INFINITY, free);
  const handle = await withPlace(input.root, input.path, 'read', (place) => openRegularFile(place));
  const made = new Set<string>();
  let bytes = 0;
  let entries = 0;

  const ensureDirectory = async (segments: readonly string[]) => {
    for (let i = 1; i <= segments.length; i++) {
      const dir = segments.slice(0, i).join('/');
      if (made.has(dir)) continue;
      await withPlace(input.root, dir, 'write', async (place) => {
        await makeDirectoryIn(place.dir, place.name, input.owner).catch(async (e: unknown) => {
          if (errnoOf(e) !== 'EEXIST') throw e;
          // An existing directory (or a link the walk may follow, staying inside the root) is used as it is.
          const info = await lstat(place.path);
          if (!info.isDirectory() && !info.isSymbolicLink()) throw new AgentError('NOT_A_DIRECTORY', `${dir} exists and is not a directory.`);
        });
      });
      made.add(dir);
    }
  };

  const writeFile = async (entry: ArchiveEntry, target: string) => {
    await withPlace(input.root, target, 'write', async (place) => {
      if (input.hidden !== undefined && place.resolved.join('/') === input.hidden) throw new AgentError('READ_ONLY', 'would replace the network\'s forwarding secret.');
      await replaceFileIn(place.dir, place.name, entry.mode || 0o644, input.owner, async (file) => {
        let written = 0;
        for await (const chunk of await entry.content()) {
          input.signal?.throwIfAborted();
          written += chunk.length;
          // Never trust the declared size alone: what inflates is counted as it comes.
          if (bytes + written > room) throw quota(room, bytes + written);
          await file.write(chunk, 0, chunk.length, null);
        }
        bytes += written;
      });
    });
  };

  try {
    await readArchive(handle, format, {
      listed(all) {
        let declared = 0;
        for (const entry of all) {
          entrySegments(entry);
          declared += entry.declaredBytes;
        }
        if (declared > room) throw quota(room, declared);
      },
      async visit(entry) {
        input.signal?.throwIfAborted();
        const segments = [...into, ...entrySegments(entry)];
        if (entry.kind === 'file' && bytes + entry.declaredBytes > room) throw quota(room, bytes + entry.declaredBytes);
        const target = segments.join('/');
        try {
          if (entry.kind === 'directory') await ensureDirectory(segments);
          else {
            await ensureDirectory(segments.slice(0, -1));
            await writeFile(entry, target);
          }
        } catch (e) {
          throw isAgentError(e) && !e.message.startsWith('entry ') && e.code !== 'DISK_QUOTA_EXCEEDED' ? refused(entry.name, e.message.replace(/^path: /, ''), e.code) : e;
        }
        entries++;
        input.progress(target || '.', bytes);
      },
    });
    return { bytes, entries };
  } finally {
    await handle.close();
  }
}
