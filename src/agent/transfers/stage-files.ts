import { createHash, randomUUID, type Hash } from 'node:crypto';
import { chmod, lstat, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkManifestPath, InvalidManifestPathError } from '../../shared/backup/manifest.js';
import { HashCache, rememberHash } from '../../shared/backup/scan.js';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';

export interface StageChunk {
  path: string;
  offset: number;
  data: Buffer;
  last: boolean;
  sha256: string;
  mode: number;
  size: number;
}

interface Incoming {
  temp: string;
  handle: FileHandle;
  hash: Hash;
  written: number;
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code;

/** A manifest path, checked; INVALID_PATH otherwise. */
export function stagePath(path: string): string {
  try {
    return checkManifestPath(path);
  } catch (e) {
    if (e instanceof InvalidManifestPathError) throw new AgentError('INVALID_PATH', `path: ${e.message}.`);
    throw e;
  }
}

/** A file system refusal where the stage holds a file where a directory must be (or the reverse). */
function pathError(e: unknown, path: string): unknown {
  const code = errnoOf(e);
  if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTEMPTY') {
    return new AgentError('INVALID_PATH', `path: ${path} clashes with what the stage holds (a file where a directory is, or the reverse).`);
  }
  return e;
}

/**
 * One stage's files: `files/` holds what is complete, `incoming/` the files being written. Each
 * file is hashed as its chunks arrive and moved into `files/` only once its size and sha256 are
 * what the Controller said; its hash is remembered, so a scan of the stage reads nothing again.
 */
export class StageFiles {
  readonly cache = new HashCache();
  private readonly writes = new Map<string, Incoming>();
  /** Directories made on request, with the mode asked for (applied by `settleModes`, so files still go in meanwhile). */
  private readonly directoryModes = new Map<string, number>();

  constructor(readonly dir: string, private readonly incoming: string) {}

  /** Files whose last chunk has not arrived. */
  get writing(): number {
    return this.writes.size;
  }

  pathOf(path: string): string {
    return join(this.dir, ...path.split('/'));
  }

  /** Applies one chunk; the caller runs the chunks of one path one at a time. */
  async write(chunk: StageChunk): Promise<void> {
    if (chunk.data.length > maxChunkBytes) throw new AgentError('TOO_LARGE', `A chunk holds at most ${maxChunkBytes} bytes.`);
    let incoming = this.writes.get(chunk.path);
    if (incoming && chunk.offset === 0) {
      await this.discard(chunk.path);
      incoming = undefined;
    }
    if (!incoming) {
      if (chunk.offset !== 0) throw new AgentError('INVALID_REQUEST', `offset: ${chunk.path} is not being written; its first chunk is at offset 0.`);
      const temp = join(this.incoming, randomUUID());
      incoming = { temp, handle: await open(temp, 'wx', 0o600), hash: createHash('sha256'), written: 0 };
      this.writes.set(chunk.path, incoming);
    }
    if (chunk.offset !== incoming.written) throw new AgentError('INVALID_REQUEST', `offset: the next chunk of ${chunk.path} is at ${incoming.written}.`);
    if (chunk.data.length > 0) await incoming.handle.write(chunk.data, 0, chunk.data.length, incoming.written);
    incoming.hash.update(chunk.data);
    incoming.written += chunk.data.length;
    if (chunk.last) await this.complete(chunk, incoming);
  }

  /** Makes a directory (an empty one of a backup comes back too); one already there is fine. */
  async makeDirectory(path: string, mode: number): Promise<void> {
    try {
      await mkdir(this.pathOf(path), { recursive: true });
    } catch (e) {
      throw pathError(e, path);
    }
    this.directoryModes.set(path, mode & 0o7777 || 0o755);
  }

  /** Removes a path (a directory with everything in it) and any write under it; a missing path is fine. */
  async remove(path: string): Promise<void> {
    const under = (p: string) => p === path || p.startsWith(`${path}/`);
    for (const written of [...this.writes.keys()]) if (under(written)) await this.discard(written);
    for (const dir of [...this.directoryModes.keys()]) if (under(dir)) this.directoryModes.delete(dir);
    await rm(this.pathOf(path), { recursive: true, force: true });
  }

  /** Gives the directories made on request their modes, innermost first (a parent's mode must not lock its children out). */
  async settleModes(): Promise<void> {
    const dirs = [...this.directoryModes].sort(([a], [b]) => b.split('/').length - a.split('/').length);
    for (const [path, mode] of dirs) {
      await chmod(this.pathOf(path), mode).catch((e: unknown) => {
        if (errnoOf(e) !== 'ENOENT') throw e;
      });
    }
  }

  /** Gives up every write under way (the stage ends). */
  async discardAll(): Promise<void> {
    for (const path of [...this.writes.keys()]) await this.discard(path);
  }

  private async complete(chunk: StageChunk, incoming: Incoming): Promise<void> {
    this.writes.delete(chunk.path);
    await incoming.handle.close();
    const sha256 = incoming.hash.digest('hex');
    const target = this.pathOf(chunk.path);
    if (sha256 !== chunk.sha256 || incoming.written !== chunk.size) {
      await rm(incoming.temp, { force: true });
      // The stage must not keep an older copy the Controller believes replaced.
      if ((await lstat(target).catch(() => undefined))?.isFile()) await rm(target, { force: true });
      throw new AgentError('CHECKSUM_MISMATCH', `${chunk.path}: ${incoming.written} bytes with sha256 ${sha256} arrived; expected ${chunk.size} bytes with sha256 ${chunk.sha256 || '(none)'}.`);
    }
    try {
      await chmod(incoming.temp, chunk.mode & 0o7777 || 0o644);
      await mkdir(dirname(target), { recursive: true });
      await rename(incoming.temp, target);
    } catch (e) {
      await rm(incoming.temp, { force: true });
      throw pathError(e, chunk.path);
    }
    await rememberHash(this.cache, target, sha256);
  }

  private async discard(path: string): Promise<void> {
    const incoming = this.writes.get(path);
    if (!incoming) return;
    this.writes.delete(path);
    await incoming.handle.close().catch(() => undefined);
    await rm(incoming.temp, { force: true });
  }
}
