import type { PassThrough, Readable } from 'node:stream';
import type { FileEntry } from '../../../shared/link/messages.js';
import { downloadStream, maxFileBytes, tooLarge, uploadBody } from './file-transfer.js';
import { agentDeadlines, type NodeCalls } from '../agent-link/node-calls.js';
import type { ServerService } from '../servers/servers.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';

/**
 * The files of a server, inside its root on its Node. The Agent resolves every path and refuses
 * what leaves the root or changes `.cairn`; the Controller only relays, bytes included.
 */
export class FileService {
  constructor(private readonly servers: ServerService, private readonly calls: NodeCalls) {}

  async list(caller: Caller, serverId: string, path: string): Promise<{ items: FileEntry[] }> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    const response = await this.calls.ask(doc, { body: 'fileList', fileList: { serverId, path } }, { timeoutMs: agentDeadlines.disk });
    return { items: response.payload === 'fileEntries' ? response.fileEntries.entries : [] };
  }

  async read(caller: Caller, serverId: string, path: string): Promise<{ body: PassThrough; sizeBytes: number }> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    return downloadStream(this.calls, doc, path);
  }

  /** `declaredBytes` is the Content-Length, if any: a declared size over the limit is refused before reading. */
  async write(caller: Caller, serverId: string, path: string, body: Readable, declaredBytes: number | undefined, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ path, ...(declaredBytes !== undefined ? { sizeBytes: declaredBytes } : {}) });
    const doc = await this.servers.load(caller, serverId, 'files.write');
    if (declaredBytes !== undefined && declaredBytes > maxFileBytes) throw tooLarge();
    const sizeBytes = await uploadBody(this.calls, doc, path, body);
    audit.detail({ sizeBytes });
  }

  async delete(caller: Caller, serverId: string, path: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ path });
    const doc = await this.servers.load(caller, serverId, 'files.delete');
    await this.calls.ask(doc, { body: 'fileDelete', fileDelete: { serverId, path } }, { timeoutMs: agentDeadlines.disk });
  }

  async mkdir(caller: Caller, serverId: string, path: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ path });
    const doc = await this.servers.load(caller, serverId, 'files.write');
    await this.calls.ask(doc, { body: 'fileMkdir', fileMkdir: { serverId, path } }, { timeoutMs: agentDeadlines.quick });
  }
}
