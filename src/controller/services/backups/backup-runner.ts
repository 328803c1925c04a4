import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { BackupDestinationDoc, BackupDoc, BackupTrigger, RecordedPlugin, ServerDoc } from '../../store/records.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import { failureText } from './backup-failure.js';

/** What a finished backup measured. */
export interface BackupOutcome {
  sizeBytes: number;
  storedBytes: number;
  fileCount: number;
}

/** Takes one backup of a running or stopped server into its destination (one implementation per destination kind). */
export interface BackupKind {
  take(backup: BackupDoc, server: ServerDoc, destination: BackupDestinationDoc, quiesce: boolean): Promise<BackupOutcome>;
}

export type BackupFinished = (backup: BackupDoc) => void;

/** A server in these phases has nothing to back up (yet, or any more). */
export function unbackable(server: ServerDoc): string | undefined {
  if (server.phase === 'PROVISIONING' || server.phase === 'DELETING') return `the server is ${server.phase}`;
  if (server.phase === 'FAILED' && !server.observed.installed) return 'the server FAILED with nothing installed';
  if (!server.nodeId) return 'the server is not placed on a Node';
  return undefined;
}

const recorded = ({ _id: _i, serverId: _s, key: _k, ...plugin }: { _id: string; serverId: string; key: string } & RecordedPlugin): RecordedPlugin => plugin;

/**
 * Runs backups: one at a time per server (others wait in order, PENDING), each RUNNING with the
 * server's software and plugins as they are when it starts, then SUCCEEDED with its sizes or
 * FAILED with the reason. Every state is persisted before the next step.
 */
export class BackupRunner {
  private readonly perServer = new KeyedMutex();
  private readonly listeners = new Set<BackupFinished>();
  /** Backups queued or running in this process: a recovery never touches them. */
  private readonly here = new Set<string>();
  private stopping = false;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly destinations: { get(id: string): Promise<BackupDestinationDoc | null> },
    private readonly kinds: Record<BackupDestinationDoc['kind'], BackupKind>,
    private readonly nodeReady: (nodeId: string) => Promise<void>,
  ) {}

  onFinished(listener: BackupFinished): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new PENDING backup record of the server (not yet queued). */
  async create(server: ServerDoc, destination: BackupDestinationDoc, trigger: BackupTrigger, scheduleId?: string): Promise<BackupDoc> {
    const doc: BackupDoc = {
      _id: this.deps.ids.next(), serverId: server._id, teamId: server.teamId, destinationId: destination._id, nodeId: server.nodeId ?? '', teamArea: true,
      ...(scheduleId ? { scheduleId } : {}), trigger, state: 'PENDING', sizeBytes: 0, storedBytes: 0, fileCount: 0,
      software: server.desired.software, plugins: [], startedAt: nowIso(this.deps),
    };
    await this.deps.repos.backups.insert(doc);
    return doc;
  }

  /** Runs the backup after those of its server queued before it; resolves with the finished record. */
  enqueue(backupId: string, serverId: string): Promise<BackupDoc | undefined> {
    this.here.add(backupId);
    return this.perServer.run(serverId, () => this.execute(backupId)).finally(() => this.here.delete(backupId));
  }

  /** Whether the backup is queued or running in this process. */
  queued(backupId: string): boolean {
    return this.here.has(backupId);
  }

  /** Runs `work` with the server's backups held back (a restore takes its PRE_RESTORE backup inside). */
  exclusive<T>(serverId: string, work: () => Promise<T>): Promise<T> {
    return this.perServer.run(serverId, work);
  }

  /** Runs a PENDING backup now; the caller holds the server's turn (enqueue or exclusive). */
  async execute(backupId: string): Promise<BackupDoc | undefined> {
    this.here.add(backupId);
    try {
      return await this.take(backupId);
    } finally {
      this.here.delete(backupId);
    }
  }

  private async take(backupId: string): Promise<BackupDoc | undefined> {
    const pending = await this.deps.repos.backups.findById(backupId);
    if (pending?.state !== 'PENDING') return pending ?? undefined;
    const server = await this.deps.repos.servers.findById(pending.serverId);
    const destination = await this.destinations.get(pending.destinationId);
    const refusal = !server ? 'the server was deleted' : !destination ? 'the destination was deleted' : unbackable(server);
    if (refusal || !server || !destination) return this.finish(pending, { state: 'FAILED', error: `Not taken: ${refusal}.` });
    await this.nodeReady(server.nodeId!);
    const plugins = (await this.deps.repos.pluginInstallations.find({ serverId: server._id }, { sort: { _id: 1 } })).map(recorded);
    const running: BackupDoc = { ...pending, state: 'RUNNING', nodeId: server.nodeId!, software: server.desired.software, plugins, startedAt: nowIso(this.deps) };
    await this.deps.repos.backups.replace({ _id: backupId }, running);
    try {
      const outcome = await this.kinds[destination.kind].take(running, server, destination, server.observed.runtimeState === 'RUNNING');
      return await this.finish(running, { state: 'SUCCEEDED', ...outcome });
    } catch (e) {
      // A Controller shutting down leaves the backup RUNNING: its next start marks it FAILED.
      if (this.stopping) return undefined;
      this.deps.logger.warn({ event: 'backup_failed', backupId, serverId: server._id, err: e }, 'a backup failed');
      return this.finish(running, { state: 'FAILED', error: `The backup failed: ${failureText(e)}.` });
    }
  }

  private async finish(doc: BackupDoc, result: Pick<BackupDoc, 'state'> & Partial<Pick<BackupDoc, 'error' | 'sizeBytes' | 'storedBytes' | 'fileCount'>>): Promise<BackupDoc> {
    const finished: BackupDoc = { ...doc, ...result, finishedAt: nowIso(this.deps) };
    await this.deps.repos.backups.replace({ _id: doc._id }, finished);
    for (const listener of this.listeners) listener(finished);
    return finished;
  }

  /** The Controller is stopping: backups cut off now are settled by the next start. */
  stop(): void {
    this.stopping = true;
  }

  /**
   * At start, or when this Controller gains a Node another drove: a backup left RUNNING is FAILED
   * (its snapshot or local run is gone with the process that ran it); one still PENDING is queued
   * again, except those a workflow took for itself (PRE_RESTORE, PRE_MIGRATE), whose workflow is
   * rolled back. `nodeId` narrows it to one Node's backups ('' for those never placed); backups
   * queued or running in this process are left alone.
   */
  async recover(nodeId?: string): Promise<void> {
    const at = nowIso(this.deps);
    const filter = { state: { $in: ['RUNNING', 'PENDING'] }, ...(nodeId === undefined ? {} : { nodeId }) };
    for (const doc of await this.deps.repos.backups.find(filter, { sort: { _id: 1 } })) {
      if (this.here.has(doc._id)) continue;
      if (doc.state === 'PENDING' && (doc.trigger === 'MANUAL' || doc.trigger === 'SCHEDULED')) {
        void this.enqueue(doc._id, doc.serverId).catch((err: unknown) => this.deps.logger.error({ err, backupId: doc._id }, 'a queued backup failed to run'));
        continue;
      }
      const failed: BackupDoc = { ...doc, state: 'FAILED', error: 'Interrupted: the Controller running it stopped while the backup was under way.', finishedAt: at };
      await this.deps.repos.backups.replace({ _id: doc._id }, failed);
      for (const listener of this.listeners) listener(failed);
    }
  }
}
