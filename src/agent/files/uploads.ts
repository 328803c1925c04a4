import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';
import type { GameIdentity } from '../isolation/game-identity.js';
import { at, chownHandle, errnoOf, locate, tempPrefix, type Place } from './beneath.js';

/** The files API's upload limit (the spec's 64 MiB); the Agent enforces it too. */
export const maxUploadBytes = 64 * 1024 * 1024;
/** An upload that hears nothing for this long is given up and its temporary file removed. */
export const uploadIdleMs = 60_000;

/** Temporary upload files are hidden from listings. */
export const isUploadTemp = (name: string) => name.startsWith(tempPrefix);

export interface ChunkInput {
  root: string;
  path: string;
  uploadId: string;
  offset: number;
  data: Buffer;
  last: boolean;
  /** The server's identity when games run as their own user: the file is theirs. */
  owner?: GameIdentity | null;
  /** Bytes the server's files may still grow by under its disk limit; undefined: no limit. Taken at the first chunk. */
  room?: number;
  /** The most the file may hold (taken at the first chunk); 0 or absent: the files API's 64 MiB. SFTP writes are bound by the disk limit alone. */
  maxBytes?: number;
}

interface Upload {
  path: string;
  /** The target's directory, held open from the first chunk to the last: the file lands where the path led then. */
  place?: Place;
  /** The temporary file's name in that directory, once created. */
  temp: string;
  handle?: FileHandle;
  written: number;
  /** The disk limit's room at the first chunk (walks during the upload would count the temporary file against it). */
  room?: number;
  /** What the file being replaced holds: freed when the upload takes its place. */
  replaces: number;
  maxBytes: number;
  /** Chunks are applied one after another in arrival order. */
  chain: Promise<unknown>;
  timer?: NodeJS.Timeout;
  done: boolean;
}

/**
 * Uploads in progress. Each is written to a temporary file in the target's directory and renamed
 * over the target only after its last chunk, so a reader never sees half a file and an abandoned
 * upload (aborted, too large, the Controller gone quiet) leaves nothing behind.
 */
export class Uploads {
  private readonly open = new Map<string, Upload>();
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly idleMs = uploadIdleMs) {}

  get active(): number {
    return this.open.size;
  }

  /**
   * Applies one chunk; resolves once it is on disk (and, for the last one, once the file is in
   * place) with the bytes the server's files grew by: non-zero only for the last chunk.
   */
  chunk(input: ChunkInput): Promise<number> {
    if (input.data.length > maxChunkBytes) return Promise.reject(new AgentError('TOO_LARGE', `A chunk holds at most ${maxChunkBytes} bytes.`));
    let upload = this.open.get(input.uploadId);
    if (!upload) {
      if (input.offset !== 0) return Promise.reject(new AgentError('NOT_FOUND', 'No such upload (it was given up or never began).'));
      const created: Upload = { path: input.path, temp: '', written: 0, replaces: 0, maxBytes: input.maxBytes || maxUploadBytes, chain: Promise.resolve(), done: false, ...(input.room === undefined ? {} : { room: input.room }) };
      upload = created;
      this.open.set(input.uploadId, created);
      created.chain = this.begin(input, created);
    }
    const current = upload;
    const step = current.chain.then(() => this.apply(input, current));
    current.chain = step.catch(() => undefined);
    this.touch(input.uploadId, current);
    return step.catch(async (e: unknown) => {
      await this.discard(input.uploadId);
      throw e;
    });
  }

  /** Gives an upload up and removes its temporary file; unknown ids are ignored. */
  async discard(uploadId: string): Promise<void> {
    const upload = this.open.get(uploadId);
    if (!upload) return;
    this.open.delete(uploadId);
    clearTimeout(upload.timer);
    upload.done = true;
    const removal = this.remove(upload);
    this.removals.add(removal);
    await removal.finally(() => this.removals.delete(removal));
  }

  /** Gives every upload up (the link to the Controller went away) and resolves once no temporary file is left, also of discards already under way. */
  async discardAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.discard(id)));
    await Promise.all(this.removals);
  }

  private async remove(upload: Upload): Promise<void> {
    await upload.chain;
    await upload.handle?.close().catch(() => undefined);
    if (upload.place && upload.temp) await unlink(at(upload.place.dir, upload.temp)).catch(() => undefined);
    await upload.place?.close().catch(() => undefined);
    upload.place = undefined;
  }

  private async begin(input: ChunkInput, upload: Upload): Promise<void> {
    const target = await locate(input.root, input.path, 'write');
    upload.place = target;
    if (target.isRoot) throw new AgentError('INVALID_PATH', 'path: names the server\'s root, not a file.');
    const existing = await lstat(target.path).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (existing?.isDirectory()) throw new AgentError('NOT_A_FILE', `path: ${target.relative} is a directory.`);
    upload.replaces = existing?.isFile() ? existing.blocks * 512 : 0;
    const temp = `${tempPrefix}${input.uploadId}`;
    // O_EXCL with O_NOFOLLOW: the temporary name is ours alone, never something planted there.
    upload.handle = await open(at(target.dir, temp), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') throw new AgentError('NOT_FOUND', `path: the directory of ${target.relative} does not exist.`);
      if (errnoOf(e) === 'ENOTDIR') throw new AgentError('NOT_A_DIRECTORY', `path: the directory of ${target.relative} is not a directory.`);
      throw e;
    });
    upload.temp = temp;
    await chownHandle(upload.handle, input.owner);
  }

  private async apply(input: ChunkInput, upload: Upload): Promise<number> {
    if (upload.done || !upload.handle || !upload.place) throw new AgentError('NOT_FOUND', 'No such upload (it was given up).');
    if (input.offset !== upload.written) throw new AgentError('INVALID_REQUEST', `Chunk at offset ${input.offset}; expected ${upload.written}.`);
    if (upload.written + input.data.length > upload.maxBytes) throw new AgentError('TOO_LARGE', `A file holds at most ${upload.maxBytes} bytes.`);
    const growth = upload.written + input.data.length - upload.replaces;
    if (upload.room !== undefined && input.data.length > 0 && growth > upload.room) {
      throw new AgentError('DISK_QUOTA_EXCEEDED', `The server's files would pass its disk limit (resources.diskBytes): ${Math.max(upload.room, 0)} bytes are left and the upload needs ${growth}.`);
    }
    if (input.data.length > 0) await upload.handle.write(input.data, 0, input.data.length, input.offset);
    upload.written += input.data.length;
    if (!input.last) return 0;
    await upload.handle.close();
    upload.handle = undefined;
    const { dir, name } = upload.place;
    const existing = await lstat(at(dir, name)).catch(() => undefined);
    if (existing?.isDirectory()) throw new AgentError('NOT_A_FILE', `path: ${input.path} became a directory during the upload.`);
    // rename replaces a final symlink itself, never the file it points to.
    await rename(at(dir, upload.temp), at(dir, name));
    upload.temp = '';
    upload.done = true;
    clearTimeout(upload.timer);
    this.open.delete(input.uploadId);
    await upload.place.close();
    upload.place = undefined;
    return upload.written - upload.replaces;
  }

  private touch(uploadId: string, upload: Upload): void {
    clearTimeout(upload.timer);
    if (upload.done) return;
    upload.timer = setTimeout(() => void this.discard(uploadId), this.idleMs);
    upload.timer.unref();
  }
}
