import type { PassThrough, Readable } from 'node:stream';
import type { FileEntry } from '../../../shared/link/messages.js';
import { refuseWhileFilesInMotion, type FileChangesUnderWay } from './file-changes.js';
import { downloadStream, maxFileBytes, readRange, tooLarge, uploadBody, type Range } from './file-transfer.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';
import type { TemplateCatalog } from '../../adapters/software/template-catalog.js';

/** A path as the Agent resolves it inside the root: `/`-separated, without empty or `.` segments. */
export const normalPath = (path: string): string => path.split('/').filter((p) => p !== '' && p !== '.').join('/');

/**
 * The files of a server, inside its root on its Node. The Agent resolves every path and refuses
 * what leaves the root or changes `.cairn`; the Controller only relays, bytes included. The one
 * refusal decided here: the file holding the network's forwarding secret (the template's
 * `network.forwardingSecret.file`) is never read, listed or written, for anyone, global
 * administrators included; every member of every admitted team trusts that secret.
 */
export class FileService {
  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
    private readonly templates: Pick<TemplateCatalog, 'get'>,
    private readonly changes: FileChangesUnderWay,
  ) {}

  /** The normalised path of the server's forwarding-secret file, if its template has one. */
  private secretFile(doc: ServerDoc): string | undefined {
    const file = this.templates.get(doc.desired.software.template)?.network?.forwardingSecret?.file;
    return file ? normalPath(file) : undefined;
  }

  private refuseSecret(doc: ServerDoc, path: string): void {
    const secret = this.secretFile(doc);
    if (secret && normalPath(path) === secret) {
      throw new DomainError('read_only', `${secret} holds the network's forwarding secret; the files API never reads or writes it.`);
    }
  }

  /** A move of the secret's file or of a directory above it would carry the secret where it is shown, or put another file in its place. */
  private refuseSecretWithin(doc: ServerDoc, side: 'from' | 'to', path: string): void {
    const secret = this.secretFile(doc);
    const moved = normalPath(path);
    if (secret && (secret === moved || secret.startsWith(`${moved}/`))) {
      throw new DomainError('read_only', `body.${side}: ${moved} holds the network's forwarding secret (${secret}); the files API never moves it.`);
    }
  }

  async list(caller: Caller, serverId: string, path: string): Promise<{ items: FileEntry[] }> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    this.refuseSecret(doc, path);
    const response = await this.calls.ask(doc, { body: 'fileList', fileList: { serverId, path } }, { timeoutMs: agentDeadlines.disk });
    const items = response.payload === 'fileEntries' ? response.fileEntries.entries : [];
    const secret = this.secretFile(doc);
    if (!secret) return { items };
    const dir = normalPath(path);
    return { items: items.filter((e) => normalPath(dir ? `${dir}/${e.name}` : e.name) !== secret) };
  }

  async read(caller: Caller, serverId: string, path: string): Promise<{ body: PassThrough; sizeBytes: number }> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    this.refuseSecret(doc, path);
    return downloadStream(this.calls, doc, path);
  }

  /** Up to `length` bytes from `offset` (SFTP reads at offsets): the chunks and the file's size. */
  async readAt(caller: Caller, serverId: string, path: string, offset: number, length: number): Promise<Range> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    this.refuseSecret(doc, path);
    return readRange(this.calls, doc, path, offset, length);
  }

  /**
   * `declaredBytes` is the Content-Length, if any: a declared size over the limit is refused before
   * reading. `maxBytes`: the PUT's 64 MiB unless told otherwise (SFTP: `diskLimitOnly`).
   */
  async write(caller: Caller, serverId: string, path: string, body: Readable, declaredBytes: number | undefined, audit: AuditScope, maxBytes = maxFileBytes): Promise<void> {
    audit.target(serverId).detail({ path, ...(declaredBytes !== undefined ? { sizeBytes: declaredBytes } : {}) });
    const doc = await this.servers.load(caller, serverId, 'files.write');
    this.refuseSecret(doc, path);
    refuseWhileFilesInMotion(doc);
    if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge();
    const sizeBytes = await this.changes.run(serverId, () => uploadBody(this.calls, doc, path, body, maxBytes));
    audit.detail({ sizeBytes });
  }

  async delete(caller: Caller, serverId: string, path: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ path });
    const doc = await this.servers.load(caller, serverId, 'files.delete');
    this.refuseSecret(doc, path);
    refuseWhileFilesInMotion(doc);
    await this.changes.run(serverId, () => this.calls.ask(doc, { body: 'fileDelete', fileDelete: { serverId, path } }, { timeoutMs: agentDeadlines.disk }));
  }

  /** `from` and `to` are refused, as the Agent names them, with `body.from` and `body.to`. */
  async move(caller: Caller, serverId: string, paths: { from: string; to: string }, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail(paths);
    const doc = await this.servers.load(caller, serverId, 'files.write');
    for (const side of ['from', 'to'] as const) this.refuseSecretWithin(doc, side, paths[side]);
    refuseWhileFilesInMotion(doc);
    const fileMove = { serverId, ...paths };
    await this.changes.run(serverId, () => this.calls.ask(doc, { body: 'fileMove', fileMove }, { timeoutMs: agentDeadlines.disk })).catch((e: unknown) => {
      throw e instanceof DomainError && /^(from|to): /.test(e.detail ?? '') ? new DomainError(e.code, `body.${e.detail}`) : e;
    });
  }

  async mkdir(caller: Caller, serverId: string, path: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ path });
    const doc = await this.servers.load(caller, serverId, 'files.write');
    this.refuseSecret(doc, path);
    refuseWhileFilesInMotion(doc);
    await this.changes.run(serverId, () => this.calls.ask(doc, { body: 'fileMkdir', fileMkdir: { serverId, path } }, { timeoutMs: agentDeadlines.quick }));
  }
}
