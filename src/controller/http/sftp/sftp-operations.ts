import ssh2, { type Attributes, type SFTPWrapper } from 'ssh2';
import type { FileEntry } from '../../../shared/link/messages.js';
import { AuditScope } from '../../core/audit-scope.js';
import { DomainError } from '../../core/errors.js';
import { diskLimitOnly } from '../../services/files/file-transfer.js';
import type { FileService } from '../../services/files/files.js';
import type { SftpAccess, SftpTarget } from '../../services/files/sftp-access.js';
import { apiPath, shownPath, splitPath } from './sftp-paths.js';
import { DirHandle, ReadHandle, WriteHandle, exitCleanly, type Handle } from './sftp-handles.js';

const { OPEN_MODE, STATUS_CODE } = ssh2.utils.sftp;

/** What a session did, audited when it closes. */
export interface SessionCounts {
  filesWritten: number;
  bytesWritten: number;
  filesDeleted: number;
}

/** A refusal carried to the client as an SFTP status. */
class Refusal extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const outsideRoot = () => new Refusal(STATUS_CODE.PERMISSION_DENIED, 'the path leads outside the server\'s root');

/** The files API's refusals as SFTP statuses: a hidden or missing thing is NO_SUCH_FILE, a refused one PERMISSION_DENIED. */
function statusOf(e: unknown): { code: number; message: string } {
  if (e instanceof Refusal) return { code: e.code, message: e.message };
  if (e instanceof DomainError) {
    const message = e.detail ?? e.code;
    if (e.code === 'not_found') return { code: STATUS_CODE.NO_SUCH_FILE, message };
    if (e.code === 'forbidden' || e.code === 'read_only' || e.denied) return { code: STATUS_CODE.PERMISSION_DENIED, message };
    return { code: STATUS_CODE.FAILURE, message };
  }
  return { code: STATUS_CODE.FAILURE, message: e instanceof Error ? e.message : String(e) };
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) || 0;

function attrsOf(entry: Pick<FileEntry, 'type' | 'sizeBytes' | 'modifiedAt'>): Attributes {
  const time = seconds(entry.modifiedAt);
  return { mode: entry.type === 'DIRECTORY' ? 0o040755 : 0o100644, uid: 0, gid: 0, size: Number(entry.sizeBytes), atime: time, mtime: time };
}

const rootAttrs: Attributes = { mode: 0o040755, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 };

/** `ls -l`'s line, which clients such as OpenSSH's `sftp` print as is. */
function longname(entry: FileEntry): string {
  const kind = entry.type === 'DIRECTORY' ? 'drwxr-xr-x' : '-rw-r--r--';
  return `${kind} 1 cairn cairn ${String(entry.sizeBytes).padStart(10)} ${entry.modifiedAt.slice(0, 16).replace('T', ' ')} ${entry.name}`;
}

/**
 * One SFTP subsystem: each request becomes a call of the files service made as the signed-in user,
 * so every operation checks `files.read`, `files.write` or `files.delete` at that moment, and the
 * Agent resolves every path inside the root as it does for the API.
 */
export class SftpOperations {
  private readonly handles = new Map<string, Handle>();
  private nextHandle = 0;
  readonly counts: SessionCounts = { filesWritten: 0, bytesWritten: 0, filesDeleted: 0 };

  constructor(private readonly sftp: SFTPWrapper, private readonly target: () => SftpTarget, private readonly files: FileService, private readonly access: SftpAccess) {
    exitCleanly(sftp);
    const on = <A extends unknown[]>(event: string, work: (...args: A) => Promise<void>) =>
      sftp.on(event, (reqId: number, ...args: A) => {
        work(...args).then(() => sftp.status(reqId, STATUS_CODE.OK), (e: unknown) => {
          const { code, message } = statusOf(e);
          sftp.status(reqId, code, message);
        }).catch(() => undefined);
      });
    const answer = <A extends unknown[]>(event: string, work: (reqId: number, ...args: A) => Promise<void>) =>
      sftp.on(event, (reqId: number, ...args: A) => {
        work(reqId, ...args).catch((e: unknown) => {
          const { code, message } = statusOf(e);
          sftp.status(reqId, code, message);
        }).catch(() => undefined);
      });
    answer('REALPATH', async (reqId, path: string) => {
      const shown = shownPath(this.path(path));
      sftp.name(reqId, [{ filename: shown, longname: shown, attrs: rootAttrs }]);
    });
    answer('STAT', async (reqId, path: string) => sftp.attrs(reqId, await this.stat(this.path(path))));
    answer('LSTAT', async (reqId, path: string) => sftp.attrs(reqId, await this.stat(this.path(path))));
    answer('FSTAT', async (reqId, handle: Buffer) => {
      const open = this.handle(handle);
      sftp.attrs(reqId, open.kind === 'write' ? { ...rootAttrs, mode: 0o100644, size: open.written } : await this.stat(open.path));
    });
    answer('OPENDIR', async (reqId, path: string) => {
      const dir = this.path(path);
      const { items } = await this.list(dir);
      sftp.handle(reqId, this.open(new DirHandle(dir, items)));
    });
    answer('READDIR', async (reqId, handle: Buffer) => {
      const open = this.handle(handle);
      if (open.kind !== 'dir') throw new Refusal(STATUS_CODE.FAILURE, 'not a directory handle');
      const batch = open.next();
      if (batch.length === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.name(reqId, batch.map((e) => ({ filename: e.name, longname: longname(e), attrs: attrsOf(e) })));
    });
    answer('OPEN', async (reqId, path: string, flags: number) => sftp.handle(reqId, this.open(await this.openFile(this.path(path), flags))));
    answer('READ', async (reqId, handle: Buffer, offset: number, length: number) => {
      const open = this.handle(handle);
      if (open.kind !== 'read') throw new Refusal(STATUS_CODE.FAILURE, 'the file is not open for reading');
      const data = await open.read(offset, length);
      if (data === undefined) sftp.status(reqId, STATUS_CODE.EOF);
      else sftp.data(reqId, data);
    });
    on('WRITE', async (handle: Buffer, offset: number, data: Buffer) => {
      const open = this.handle(handle);
      if (open.kind !== 'write') throw new Refusal(STATUS_CODE.FAILURE, 'the file is not open for writing');
      await open.write(offset, data);
    });
    on('CLOSE', async (handle: Buffer) => {
      const open = this.handle(handle);
      this.handles.delete(handle.toString('hex'));
      if (open.kind !== 'write') return;
      this.counts.bytesWritten += await open.close();
      this.counts.filesWritten += 1;
    });
    on('REMOVE', async (path: string) => this.remove(this.path(path), false));
    on('RMDIR', async (path: string) => this.remove(this.path(path), true));
    on('MKDIR', async (path: string) => this.files.mkdir(this.target().caller, this.target().serverId, this.path(path), this.scope('file.mkdir')));
    on('RENAME', async (from: string, to: string) => this.files.move(this.target().caller, this.target().serverId, { from: this.path(from), to: this.path(to) }, this.scope('file.move')));
    // Modes and times are the Agent's to set: a client's chmod or touch is accepted and changes nothing.
    on('SETSTAT', async (path: string) => void (await this.stat(this.path(path))));
    on('FSETSTAT', async (handle: Buffer) => void this.handle(handle));
    on('READLINK', async () => { throw new Refusal(STATUS_CODE.OP_UNSUPPORTED, 'links are not offered'); });
    on('SYMLINK', async () => { throw new Refusal(STATUS_CODE.OP_UNSUPPORTED, 'links are not offered'); });
  }

  /** Uploads cut off by the session's end leave nothing behind. */
  end(): void {
    for (const open of this.handles.values()) if (open.kind === 'write') open.abort();
    this.handles.clear();
  }

  private path(sftpPath: string): string {
    const path = apiPath(sftpPath);
    if (path === undefined) throw outsideRoot();
    return path;
  }

  /** Each request audits nothing itself: the session is audited once, at its open and its close. */
  private scope(action: string): AuditScope {
    return new AuditScope(action, 'server');
  }

  /** The files API names the root `.`. */
  private list(dir: string) {
    return this.files.list(this.target().caller, this.target().serverId, dir === '' ? '.' : dir);
  }

  private open(handle: Handle): Buffer {
    const id = Buffer.alloc(4);
    id.writeUInt32BE(this.nextHandle++);
    this.handles.set(id.toString('hex'), handle);
    return id;
  }

  private handle(id: Buffer): Handle {
    const open = this.handles.get(id.toString('hex'));
    if (!open) throw new Refusal(STATUS_CODE.FAILURE, 'no such handle');
    return open;
  }

  private async stat(path: string): Promise<Attributes> {
    if (path === '') return rootAttrs;
    const { dir, name } = splitPath(path);
    const { items } = await this.list(dir);
    const entry = items.find((e) => e.name === name);
    if (!entry) throw new Refusal(STATUS_CODE.NO_SUCH_FILE, `no such file: ${shownPath(path)}`);
    return attrsOf(entry);
  }

  private async openFile(path: string, flags: number): Promise<Handle> {
    const { caller, serverId } = this.target();
    if (!(flags & (OPEN_MODE.WRITE | OPEN_MODE.APPEND))) {
      const attrs = await this.stat(path);
      if ((attrs.mode & 0o040000) !== 0) throw new Refusal(STATUS_CODE.FAILURE, `${shownPath(path)} is a directory`);
      return new ReadHandle(path, (offset, length) => this.files.readAt(this.target().caller, serverId, path, offset, length));
    }
    if (flags & OPEN_MODE.APPEND) throw new Refusal(STATUS_CODE.OP_UNSUPPORTED, 'appending is not offered: write the whole file');
    await this.access.require(this.target(), 'files.write');
    return new WriteHandle(path, (body) => this.files.write(caller, serverId, path, body, undefined, this.scope('file.write'), diskLimitOnly));
  }

  private async remove(path: string, directory: boolean): Promise<void> {
    if (path === '') throw new Refusal(STATUS_CODE.PERMISSION_DENIED, 'the root cannot be removed');
    const attrs = await this.stat(path);
    const isDirectory = (attrs.mode & 0o040000) !== 0;
    if (isDirectory !== directory) throw new Refusal(STATUS_CODE.FAILURE, `${shownPath(path)} is ${isDirectory ? 'a directory: use rmdir' : 'a file: use rm'}`);
    if (directory && (await this.list(path)).items.length > 0) {
      throw new Refusal(STATUS_CODE.FAILURE, `${shownPath(path)} is not empty`);
    }
    await this.files.delete(this.target().caller, this.target().serverId, path, this.scope('file.delete'));
    this.counts.filesDeleted += 1;
  }
}
