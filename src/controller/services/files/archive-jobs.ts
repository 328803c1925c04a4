import { randomUUID } from 'node:crypto';
import type { ArchiveJob } from '../../schemas/file-archives.js';
import { archiveFormatOf, readableNames, writableFormats, writableNames } from '../../../shared/archive-format.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { DomainError, invalidRequest, notFound } from '../../core/errors.js';
import type { NodeCalls } from '../../link/node-calls.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import { refuseWhileFilesInMotion, type FileChangesUnderWay } from './file-changes.js';
import { normalPath } from './files.js';

/** An archive job's request to its Agent may run this long (a large extract on a slow disk). */
const jobDeadlineMs = 6 * 60 * 60 * 1000;
/** Jobs kept in memory; the oldest finished ones go first. */
const maxJobs = 1000;
/** A failed job lists at most this many of the paths it had written. */
const maxWrittenListed = 1000;

interface JobRecord {
  serverId: string;
  job: ArchiveJob;
}

/**
 * Archive jobs: the Controller starts one on the server's Agent and answers 202 at once; the
 * Agent's progress parts update the record, its last answer ends it. The record lives in this
 * Controller's memory (a restart forgets finished jobs; one running then ends with its request).
 * An Agent that goes away ends the job FAILED with the paths it had put in place, each a whole
 * file: the Agent renames a file into place only once it is written.
 */
export class ArchiveJobs {
  private readonly jobs = new Map<string, JobRecord>();

  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
    private readonly changes: FileChangesUnderWay,
  ) {}

  async extract(caller: Caller, serverId: string, body: { path: string; into?: string }, audit: AuditScope): Promise<ArchiveJob> {
    const into = body.into ?? (normalPath(body.path).split('/').slice(0, -1).join('/') || '.');
    audit.target(serverId).detail({ path: body.path, into });
    if (!archiveFormatOf(body.path)) throw invalidRequest(`body.path: not an archive Cairn reads (${readableNames}).`);
    return this.start(caller, serverId, { kind: 'EXTRACT', path: body.path, paths: [], into }, audit);
  }

  async compress(caller: Caller, serverId: string, body: { paths: string[]; into: string }, audit: AuditScope): Promise<ArchiveJob> {
    audit.target(serverId).detail({ paths: body.paths, into: body.into });
    const format = archiveFormatOf(body.into);
    if (!format || !writableFormats.includes(format)) throw invalidRequest(`body.into: name the archive with one of ${writableNames} (tar.zst is read only).`);
    return this.start(caller, serverId, { kind: 'COMPRESS', path: body.paths[0], paths: body.paths, into: body.into }, audit);
  }

  async get(caller: Caller, serverId: string, jobId: string): Promise<ArchiveJob> {
    await this.servers.load(caller, serverId, 'files.read');
    const record = this.jobs.get(jobId);
    if (!record || record.serverId !== serverId) throw notFound('job');
    return record.job;
  }

  private async start(caller: Caller, serverId: string, work: { kind: ArchiveJob['kind']; path: string; paths: string[]; into: string }, audit: AuditScope): Promise<ArchiveJob> {
    await this.servers.load(caller, serverId, 'files.read');
    const doc = await this.servers.load(caller, serverId, 'files.write');
    refuseWhileFilesInMotion(doc);
    const job: ArchiveJob = { id: randomUUID(), kind: work.kind, state: 'RUNNING', path: work.path, into: work.into, bytes: 0, entries: 0 };
    audit.detail({ jobId: job.id });
    this.keep({ serverId, job });
    const written: string[] = [];
    const request = this.changes.run(serverId, () => this.calls.ask(doc, { body: 'fileArchiveJob', fileArchiveJob: { serverId, ...work } }, {
      timeoutMs: jobDeadlineMs,
      onPart: (part) => {
        if (part.payload !== 'archiveProgress') return;
        job.bytes = part.archiveProgress.bytes;
        if (part.archiveProgress.entries > 0) job.entries = part.archiveProgress.entries;
        for (const path of part.archiveProgress.written) if (written.length < maxWrittenListed) written.push(path);
      },
    }));
    request.then((last) => {
      if (last.payload === 'archiveProgress') Object.assign(job, { bytes: last.archiveProgress.bytes, entries: last.archiveProgress.entries });
      job.state = 'SUCCEEDED';
    }, (e: unknown) => {
      job.state = 'FAILED';
      job.error = e instanceof DomainError ? e.detail ?? e.code : 'The job failed.';
      if (written.length > 0) job.written = written;
    });
    return { ...job };
  }

  private keep(record: JobRecord): void {
    this.jobs.set(record.job.id, record);
    if (this.jobs.size <= maxJobs) return;
    for (const [id, old] of this.jobs) {
      if (old.job.state === 'RUNNING') continue;
      this.jobs.delete(id);
      if (this.jobs.size <= maxJobs) return;
    }
  }
}
