import { isGlobalAdmin } from '../../domain/permissions.js';
import type { AuditScope } from '../../core/audit-scope.js';
import type { Caller } from '../../core/caller.js';
import { conflict, DomainError, notFound } from '../../core/errors.js';
import { paginate } from '../../domain/cursor.js';
import type { Permission } from '../../core/permission-names.js';
import type { BackupDoc, BackupState, ServerDoc } from '../../store/records.js';
import { hidden, type Access } from '../identity/access.js';
import type { ServiceDeps } from '../deps.js';
import { errorFromAgent } from '../../link/node-calls.js';
import type { ServerAggregate } from '../servers/aggregate.js';
import type { BackupHandoff } from './backup-handoff.js';
import type { BackupRemoval } from './backup-removal.js';
import { unbackable, type BackupRunner } from './backup-runner.js';
import { backupView } from './backup-views.js';
import type { BackupDestinations } from './destinations.js';

export interface BackupListQuery {
  limit: number;
  cursor?: string;
  serverId?: string;
  state?: BackupState;
}

/**
 * Backups as the API shows them: taken by hand, listed newest first, read, deleted. Who may:
 * `backups.read`, `backups.create` in the server's team; once the server is deleted its backups
 * are for global administrators only.
 */
export class BackupService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: Access,
    private readonly servers: ServerAggregate,
    private readonly destinations: BackupDestinations,
    private readonly runner: BackupRunner,
    private readonly removal: BackupRemoval,
    private readonly handoff: BackupHandoff,
  ) {}

  /** The backup and its server (null once deleted), if the caller holds `permission` for it. */
  async load(caller: Caller, backupId: string, permission: Permission): Promise<{ backup: BackupDoc; server: ServerDoc | null }> {
    const backup = await this.deps.repos.backups.findById(backupId);
    if (!backup) throw notFound('backup');
    const server = await this.deps.repos.servers.findById(backup.serverId);
    if (!server) {
      if (!isGlobalAdmin(caller)) throw hidden('backup');
      return { backup, server: null };
    }
    await this.access.require(caller, server.teamId, permission, 'backup', 'backups.read');
    return { backup, server };
  }

  async take(caller: Caller, serverId: string, input: { destinationId?: string }, audit: AuditScope) {
    audit.detail({ serverId, trigger: 'MANUAL' });
    const server = await this.servers.load(caller, serverId, 'backups.create');
    const refusal = unbackable(server);
    if (refusal) throw new DomainError(server.nodeId ? 'phase_busy' : 'conflict', `Cannot back up now: ${refusal}.`);
    const destination = await this.destinations.resolve(input.destinationId);
    const doc = await this.runner.create(server, destination, 'MANUAL');
    audit.target(doc._id).detail({ destinationId: destination._id, destinationKind: destination.kind });
    this.queue(doc);
    return backupView(doc);
  }

  /** Runs a created backup in its server's turn, in the background, on the Controller that drives its Node. */
  queue(doc: BackupDoc): void {
    this.handoff.queue(doc);
  }

  async listForServer(caller: Caller, serverId: string, page: { limit: number; cursor?: string }) {
    await this.servers.load(caller, serverId, 'backups.read');
    return this.page(page, [{ serverId }]);
  }

  /** Every backup the caller may read: of servers in teams where it holds backups.read; global administrators see all, deleted servers' too. */
  async list(caller: Caller, query: BackupListQuery) {
    const filter: Record<string, unknown>[] = [];
    const teams = await this.access.teamsWith(caller, 'backups.read');
    if (teams) {
      const readable = await this.deps.repos.servers.find({ teamId: { $in: teams } });
      filter.push({ serverId: { $in: readable.map((s) => s._id) } });
    }
    if (query.serverId) filter.push({ serverId: query.serverId });
    if (query.state) filter.push({ state: query.state });
    return this.page(query, filter);
  }

  /** Newest first: ids are time-ordered, so the cursor is the id the next page ends before. */
  private async page(page: { limit: number; cursor?: string }, filter: Record<string, unknown>[]) {
    const result = await paginate<BackupDoc, string>(page, (before, limit) => {
      const all = before === undefined ? filter : [...filter, { _id: { $lt: before } }];
      return this.deps.repos.backups.find(all.length ? { $and: all } : {}, { sort: { _id: -1 }, limit });
    }, (b) => b._id);
    return { ...result, items: result.items.map(backupView) };
  }

  async get(caller: Caller, backupId: string) {
    return backupView((await this.load(caller, backupId, 'backups.read')).backup);
  }

  async delete(caller: Caller, backupId: string, audit: AuditScope): Promise<void> {
    audit.target(backupId);
    const { backup } = await this.load(caller, backupId, 'backups.create');
    audit.detail({ serverId: backup.serverId, destinationId: backup.destinationId, trigger: backup.trigger });
    if (backup.state === 'PENDING' || backup.state === 'RUNNING') throw conflict(`The backup is ${backup.state}; delete it once it has finished.`);
    const restoring = await this.deps.repos.servers.findOne({ phase: 'RESTORING', 'workflow.backupId': backupId });
    if (restoring) throw conflict(`The backup is being restored into ${restoring.name}; delete it once the restore has finished.`);
    try {
      await this.removal.remove([backup]);
    } catch (e) {
      throw errorFromAgent(e);
    }
  }
}
