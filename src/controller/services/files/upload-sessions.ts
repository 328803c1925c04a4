import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { RequestBody } from '../../../shared/link/messages.js';
import { uploadLifetimeMs } from '../../../shared/upload-lifetime.js';
import type { UploadState } from '../../../shared/link/generated/cairn/agent/v1/UploadState.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError, invalidRequest } from '../../core/errors.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { Upload } from '../../schemas/file-uploads.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import { refuseWhileFilesInMotion, type FileChangesUnderWay } from './file-changes.js';
import { maxFileBytes } from './file-transfer.js';
import { streamIntoUpload } from './upload-stream.js';

/** Putting the file in place may copy it whole when the root is on another file system than the Agent's data. */
const completeDeadlineMs = 30 * 60 * 1000;
/** One PUT of an upload carries at most this much (the single-request limit; clients send 8–16 MiB). */
export const maxUploadRequestBytes = maxFileBytes;

const asUpload = (serverId: string, state: UploadState): Upload => ({
  id: state.uploadId, serverId, path: state.path, size: state.size, offset: state.offset,
  createdAt: new Date(state.createdUnixMs).toISOString(), expiresAt: new Date(state.touchedUnixMs + uploadLifetimeMs).toISOString(),
  completed: state.completed,
});

/** The Agent names the field it refuses (`path: `, `size: `, `offset: `); the API names where it was sent. */
function naming(fields: Record<string, string>): (e: unknown) => never {
  return (e: unknown) => {
    if (!(e instanceof DomainError) || !e.detail) throw e;
    const field = /^(\w+): /.exec(e.detail)?.[1];
    const where = field === undefined ? undefined : fields[field];
    if (where === undefined) throw e;
    throw new DomainError(e.code, `${where}.${e.detail}`, { headers: e.headers, ...(e.offset === undefined ? {} : { offset: e.offset }) });
  };
}

/**
 * Resumable uploads: the Node keeps each one (outside the server's root) across requests and
 * restarts of either side; the Controller keeps nothing, so any Controller continues any upload.
 * Every call checks `files.write` at that moment.
 */
export class UploadSessionService {
  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
    private readonly changes: FileChangesUnderWay,
  ) {}

  private async state(doc: ServerDoc, body: RequestBody, timeoutMs: number = agentDeadlines.disk): Promise<UploadState> {
    const response = await this.calls.ask(doc, body, { timeoutMs });
    if (response.payload !== 'uploadState') throw new DomainError('internal', 'The Agent answered an upload request without its state.');
    return response.uploadState;
  }

  private status(doc: ServerDoc, uploadId: string): Promise<UploadState> {
    return this.state(doc, { body: 'uploadStatus', uploadStatus: { serverId: doc._id, uploadId } }, agentDeadlines.quick)
      .catch((e: unknown) => {
        throw e instanceof DomainError && e.code === 'not_found' ? new DomainError('not_found', 'No such upload: unknown, cancelled, or swept a day after its last write.') : e;
      });
  }

  private async writable(caller: Caller, serverId: string): Promise<ServerDoc> {
    const doc = await this.servers.load(caller, serverId, 'files.write');
    refuseWhileFilesInMotion(doc);
    return doc;
  }

  async begin(caller: Caller, serverId: string, body: { path: string; size: number }, audit: AuditScope): Promise<Upload> {
    audit.target(serverId).detail({ path: body.path, size: body.size });
    const doc = await this.writable(caller, serverId);
    const uploadId = randomUUID();
    audit.detail({ uploadId });
    const state = await this.state(doc, { body: 'uploadBegin', uploadBegin: { serverId, uploadId, path: body.path, size: body.size } }).catch(naming({ path: 'body', size: 'body' }));
    return asUpload(serverId, state);
  }

  async get(caller: Caller, serverId: string, uploadId: string): Promise<Upload> {
    const doc = await this.servers.load(caller, serverId, 'files.write');
    return asUpload(serverId, await this.status(doc, uploadId));
  }

  async cancel(caller: Caller, serverId: string, uploadId: string, audit: AuditScope): Promise<void> {
    audit.target(serverId).detail({ uploadId });
    const doc = await this.servers.load(caller, serverId, 'files.write');
    audit.detail({ path: (await this.status(doc, uploadId)).path });
    await this.calls.ask(doc, { body: 'uploadCancel', uploadCancel: { serverId, uploadId } }, { timeoutMs: agentDeadlines.disk });
  }

  /**
   * Appends the body at `offset`, which must be the upload's; once it holds all its bytes the file
   * is put in place, and the request is audited as the write it then is. `declaredBytes` is the
   * Content-Length: one past what the upload still takes is refused before reading.
   */
  async append(caller: Caller, serverId: string, uploadId: string, offset: number, body: Readable, declaredBytes: number | undefined, audit: AuditScope): Promise<Upload> {
    audit.target(serverId).detail({ uploadId, offset });
    const doc = await this.writable(caller, serverId);
    return this.changes.run(serverId, async () => {
      const current = await this.status(doc, uploadId);
      audit.detail({ path: current.path });
      if (offset > current.size) throw invalidRequest(`query.offset: past the upload's size of ${current.size} bytes.`);
      if (offset !== current.offset || current.completed) {
        throw new DomainError('upload_offset_mismatch', `query.offset: the upload holds ${current.offset} bytes${current.completed ? ' and is completed' : ''}; continue at ${current.offset}.`, { offset: current.offset });
      }
      const left = current.size - offset;
      const tooMuch = () => new DomainError('too_large', declaredBytes !== undefined && declaredBytes > maxUploadRequestBytes
        ? `body: one request carries at most ${maxUploadRequestBytes} bytes (64 MiB); send the upload in pieces.`
        : `body: more than the ${left} bytes the upload still takes (its size is ${current.size}).`);
      if (declaredBytes !== undefined && (declaredBytes > left || declaredBytes > maxUploadRequestBytes)) throw tooMuch();
      const send = async (at: number, data: Buffer) => (await this.state(doc, { body: 'uploadAppend', uploadAppend: { serverId, uploadId, offset: at, data } })).offset;
      const reached = await streamIntoUpload(body, offset, Math.min(left, maxUploadRequestBytes), send, tooMuch).catch(naming({ offset: 'query' }));
      audit.detail({ bytes: reached - offset });
      if (reached < current.size) return asUpload(serverId, { ...current, offset: reached, touchedUnixMs: Date.now() });
      const done = await this.state(doc, { body: 'uploadComplete', uploadComplete: { serverId, uploadId } }, completeDeadlineMs);
      audit.action = 'server.file.write';
      audit.detail({ size: done.size, sizeBytes: done.size });
      return asUpload(serverId, done);
    });
  }
}
