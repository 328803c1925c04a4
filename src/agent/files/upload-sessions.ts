import { constants } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { uploadLifetimeMs } from '../../shared/upload-lifetime.js';
import { AgentError } from '../errors.js';
import { serverHome } from '../reconciler/server-paths.js';
import { isValidServerId } from '../runtime/state-dir.js';
import { errnoOf } from './beneath.js';

/** What the Agent keeps of an upload beside its partial data; `offset` and `touchedAt` come from the data file itself. */
interface Sidecar {
  path: string;
  size: number;
  createdAt: number;
  completed?: boolean;
}

export interface UploadRecord extends Sidecar {
  uploadId: string;
  /** Bytes on disk, synced. */
  offset: number;
  /** The last write, ms since the epoch. */
  touchedAt: number;
  completed: boolean;
}

const idPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The uploads of one server live beside its root, never inside it: the game cannot see, rename or replace them. */
export const uploadsDirOf = (dataDir: string, serverId: string) => join(serverHome(dataDir, serverId), 'uploads');

const notFound = () => new AgentError('NOT_FOUND', 'No such upload (it was completed long ago, cancelled, or swept after a day untouched).');

/**
 * Upload sessions: a file of any size written in pieces across requests, Agent restarts and
 * Controller restarts. The bytes go to `<id>.part` and the path and size to `<id>.json`, both in
 * the server's `uploads/` directory outside its root; every append is synced before it is
 * answered, so the offset shown is what survives. The part file's size is the offset and its
 * mtime the last touch: no record is rewritten per chunk. Operations on one upload run one after
 * another. Putting the file in place is the caller's (`complete` hands it the part file).
 */
export class UploadSessions {
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(private readonly dataDir: string, private readonly now: () => number = Date.now) {}

  private files(serverId: string, uploadId: string) {
    if (!idPattern.test(uploadId)) throw new AgentError('INVALID_REQUEST', 'uploadId: not an upload id.');
    const dir = uploadsDirOf(this.dataDir, serverId);
    return { dir, part: join(dir, `${uploadId}.part`), sidecar: join(dir, `${uploadId}.json`) };
  }

  /** Runs `work` after every earlier operation on the same upload. */
  private inTurn<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
    const result = (this.turns.get(uploadId) ?? Promise.resolve()).then(work);
    const settled = result.catch(() => undefined);
    this.turns.set(uploadId, settled);
    void settled.then(() => {
      if (this.turns.get(uploadId) === settled) this.turns.delete(uploadId);
    });
    return result;
  }

  async begin(serverId: string, uploadId: string, path: string, size: number): Promise<UploadRecord> {
    const { dir, part, sidecar } = this.files(serverId, uploadId);
    return this.inTurn(uploadId, async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // O_EXCL: an id names one upload, never one begun before.
      const handle = await open(part, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600).catch((e: unknown) => {
        if (errnoOf(e) === 'EEXIST') throw new AgentError('ALREADY_EXISTS', 'uploadId: an upload with this id exists.');
        throw e;
      });
      await handle.close();
      await this.writeSidecar(sidecar, { path, size, createdAt: this.now() });
      return this.read(serverId, uploadId);
    });
  }

  /** The upload, or NOT_FOUND. */
  status(serverId: string, uploadId: string): Promise<UploadRecord> {
    return this.inTurn(uploadId, () => this.read(serverId, uploadId));
  }

  /** Sizes of this server's uploads not yet completed (but `except`): what they will add to its files. */
  async pendingBytes(serverId: string, except?: string): Promise<number> {
    let total = 0;
    for (const record of await this.list(serverId)) if (!record.completed && record.uploadId !== except) total += record.size;
    return total;
  }

  async append(serverId: string, uploadId: string, offset: number, data: Buffer): Promise<UploadRecord> {
    if (data.length > maxChunkBytes) throw new AgentError('TOO_LARGE', `A chunk holds at most ${maxChunkBytes} bytes.`);
    const { part } = this.files(serverId, uploadId);
    return this.inTurn(uploadId, async () => {
      const record = await this.read(serverId, uploadId);
      if (record.completed || offset !== record.offset) {
        throw new AgentError('UPLOAD_OFFSET_MISMATCH', `offset: the upload holds ${record.offset} bytes; continue at ${record.offset}${record.completed ? ' (it is completed)' : ''}.`);
      }
      if (offset + data.length > record.size) throw new AgentError('TOO_LARGE', `body: ${offset + data.length - record.size} bytes past the upload's size of ${record.size}.`);
      if (data.length === 0) return record;
      const handle = await open(part, constants.O_WRONLY | constants.O_NOFOLLOW);
      try {
        await handle.write(data, 0, data.length, offset);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      return this.read(serverId, uploadId);
    });
  }

  /** Removes the upload's data and record; an unknown one is fine. */
  cancel(serverId: string, uploadId: string): Promise<void> {
    const { part, sidecar } = this.files(serverId, uploadId);
    return this.inTurn(uploadId, () => removeBoth(part, sidecar));
  }

  /**
   * Puts a whole upload in place with `place` (given the part file's path), then keeps its record
   * as completed until the sweep, so a client that lost the answer learns it went through. A
   * completed upload is answered as it is, nothing placed again.
   */
  complete(serverId: string, uploadId: string, place: (part: string, record: UploadRecord) => Promise<void>): Promise<UploadRecord> {
    const { part, sidecar } = this.files(serverId, uploadId);
    return this.inTurn(uploadId, async () => {
      const record = await this.read(serverId, uploadId);
      if (record.completed) return record;
      if (record.offset !== record.size) throw new AgentError('UPLOAD_OFFSET_MISMATCH', `offset: the upload holds ${record.offset} of its ${record.size} bytes; continue at ${record.offset}.`);
      await place(part, record);
      await this.writeSidecar(sidecar, { path: record.path, size: record.size, createdAt: record.createdAt, completed: true });
      await unlink(part).catch((e: unknown) => {
        if (errnoOf(e) !== 'ENOENT') throw e;
      });
      return { ...record, completed: true, touchedAt: this.now() };
    });
  }

  /** Every upload of the server, oldest first. */
  async list(serverId: string): Promise<UploadRecord[]> {
    const names = await readdir(uploadsDirOf(this.dataDir, serverId)).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return [];
      throw e;
    });
    const records: UploadRecord[] = [];
    for (const name of names) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (!idPattern.test(id)) continue;
      const record = await this.read(serverId, id).catch(() => undefined);
      if (record) records.push(record);
    }
    return records.sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Removes uploads untouched for a day (completed ones a day after completion), and what an
   * interrupted begin or a crash left: part files without a record, records without a part
   * file, half-written records. Answers how many uploads went.
   */
  async sweep(): Promise<number> {
    const servers = await readdir(join(this.dataDir, 'servers')).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') return [];
      throw e;
    });
    let removed = 0;
    for (const serverId of servers.filter(isValidServerId)) removed += await this.sweepServer(serverId);
    return removed;
  }

  private async sweepServer(serverId: string): Promise<number> {
    const dir = uploadsDirOf(this.dataDir, serverId);
    const names = await readdir(dir).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR') return [];
      throw e;
    });
    const ids = new Set(names.map((n) => n.replace(/\.(part|json|json\.tmp)$/, '')));
    let removed = 0;
    for (const id of ids) {
      if (!idPattern.test(id)) continue;
      const gone = await this.inTurn(id, async () => {
        const { part, sidecar } = this.files(serverId, id);
        const touched = await lastTouch(part, sidecar);
        if (touched !== undefined && this.now() - touched < uploadLifetimeMs) return false;
        await removeBoth(part, sidecar);
        await unlink(`${sidecar}.tmp`).catch(() => undefined);
        return true;
      });
      if (gone) removed += 1;
    }
    return removed;
  }

  private async read(serverId: string, uploadId: string): Promise<UploadRecord> {
    const { part, sidecar } = this.files(serverId, uploadId);
    const text = await readFile(sidecar, 'utf8').catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') throw notFound();
      throw e;
    });
    const saved = JSON.parse(text) as Sidecar;
    if (saved.completed) {
      const done = await stat(sidecar);
      return { ...saved, uploadId, offset: saved.size, touchedAt: done.mtimeMs, completed: true };
    }
    const data = await stat(part).catch((e: unknown) => {
      if (errnoOf(e) === 'ENOENT') throw notFound();
      throw e;
    });
    return { ...saved, uploadId, offset: Math.min(data.size, saved.size), touchedAt: Math.max(data.mtimeMs, saved.createdAt), completed: false };
  }

  /** Written beside and renamed: a record is whole or absent, never half. */
  private async writeSidecar(path: string, sidecar: Sidecar): Promise<void> {
    const temp = `${path}.tmp`;
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(JSON.stringify(sidecar));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  }
}

async function removeBoth(part: string, sidecar: string): Promise<void> {
  for (const file of [part, sidecar]) {
    await unlink(file).catch((e: unknown) => {
      if (errnoOf(e) !== 'ENOENT') throw e;
    });
  }
}

/** The latest mtime of the upload's files; undefined when neither is there. */
async function lastTouch(part: string, sidecar: string): Promise<number | undefined> {
  const times = await Promise.all([part, sidecar, `${sidecar}.tmp`].map((f) => stat(f).then((s) => s.mtimeMs, () => undefined)));
  const known = times.filter((t): t is number => t !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
}
