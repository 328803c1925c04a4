import {
  Backup, BackupDestination, BackupListQuery, BackupParams, BackupSchedule, CreateDestination, CreateSchedule, DestinationParams, RestoreBackup,
  ScheduleParams, ServerBackupListQuery, TakeBackup,
} from '../../schemas/backups.js';
import { PageQuery, Paged } from '../../schemas/common.js';
import { ServerDetail, ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { route } from '../route.js';

const deletedServers = 'Once the server is deleted, its backups are for global administrators only.';

export const backupRoutes = (s: Services) => {
  const b = s.backups;
  return [
    route({
      method: 'GET', path: '/backup-destinations', tag: 'backups', status: 200,
      summary: 'Backup destinations (global administrators), in creation order; `controller` (kind CONTROLLER) exists from the first start.',
      query: PageQuery, response: Paged(BackupDestination),
      handler: async ({ caller, query }) => b.destinations.list(caller, query),
    }),
    route({
      method: 'POST', path: '/backup-destinations', tag: 'backups', status: 201,
      summary: 'Add a backup destination (global administrators).',
      description: '`NODE_DIRECTORY`: backups are kept under `path` (absolute, at most 1,024 characters) on the Node that takes each one, and can be restored onto servers on that Node only. `CONTROLLER` (no `path`): kept by the Controller (its data dir, or GridFS on MongoDB), restorable on any Node. Names are unique regardless of case.',
      body: CreateDestination, response: BackupDestination, errors: ['conflict'],
      audit: { action: 'backup-destination.create', targetKind: 'backup-destination' },
      handler: async ({ caller, body, audit }) => b.destinations.create(caller, body, audit),
    }),
    route({
      method: 'DELETE', path: '/backup-destinations/{destinationId}', tag: 'backups', status: 204,
      summary: 'Remove a backup destination (global administrators); `conflict` while backups or schedules use it, and for the built-in one.',
      params: DestinationParams, errors: ['conflict'],
      audit: { action: 'backup-destination.delete', targetKind: 'backup-destination' },
      handler: async ({ caller, params, audit }) => b.destinations.delete(caller, params.destinationId, audit),
    }),
    route({
      method: 'POST', path: '/servers/{serverId}/backups', tag: 'backups', status: 202,
      summary: 'Take a backup of the server (`backups.create`); default destination: the built-in `controller`.',
      description: 'Answers at once with the backup `PENDING`; it runs when the server\'s earlier backups have finished, then is `RUNNING`, and `SUCCEEDED` or `FAILED` (with `error`). A running server is quiesced while its files are read (save-off, save-all, save-on for Minecraft). Refused with `phase_busy` while the server is PROVISIONING or DELETING.',
      params: ServerParams, body: TakeBackup, response: Backup, errors: ['phase_busy'],
      audit: { action: 'backup.create', targetKind: 'backup' },
      handler: async ({ caller, params, body, audit }) => b.backups.take(caller, params.serverId, body, audit),
    }),
    route({
      method: 'GET', path: '/servers/{serverId}/backups', tag: 'backups', status: 200,
      summary: 'The server\'s backups, newest first (`backups.read`).',
      params: ServerParams, query: ServerBackupListQuery, response: Paged(Backup),
      handler: async ({ caller, params, query }) => b.backups.listForServer(caller, params.serverId, query),
    }),
    route({
      method: 'GET', path: '/backups', tag: 'backups', status: 200,
      summary: 'Every backup you may read (`backups.read` in the server\'s team), newest first; filters: serverId, state.',
      description: deletedServers,
      query: BackupListQuery, response: Paged(Backup),
      handler: async ({ caller, query }) => b.backups.list(caller, query),
    }),
    route({
      method: 'GET', path: '/backups/{backupId}', tag: 'backups', status: 200,
      summary: 'One backup (`backups.read`).', description: deletedServers,
      params: BackupParams, response: Backup,
      handler: async ({ caller, params }) => b.backups.get(caller, params.backupId),
    }),
    route({
      method: 'DELETE', path: '/backups/{backupId}', tag: 'backups', status: 204,
      summary: 'Delete a finished backup (`backups.create`): its manifest, then the content no other backup shares.',
      description: `\`conflict\` while it is PENDING or RUNNING or being restored; \`node_unavailable\` when its Node (NODE_DIRECTORY) cannot be reached. ${deletedServers}`,
      params: BackupParams, errors: ['conflict', 'node_unavailable'],
      audit: { action: 'backup.delete', targetKind: 'backup' },
      handler: async ({ caller, params, audit }) => b.backups.delete(caller, params.backupId, audit),
    }),
    route({
      method: 'POST', path: '/backups/{backupId}/restore', tag: 'backups', status: 202,
      summary: 'Restore a backup (`backups.restore`): the server goes RESTORING, then READY and back to its desired runtime state.',
      description: 'The workflow takes a `PRE_RESTORE` backup to the same destination, stops the server, fills a stage from the backup (every file checked against its sha256), replaces the server\'s files (`.cairn` installed again with the backup\'s software), and sets the recorded software and plugins. A failure rolls the server back to READY with a `RESTORE_FAILED` condition saying what failed. `serverId` restores into another server of the same template (global administrators restore a deleted server\'s backup this way; another template is `invalid_request`). A NODE_DIRECTORY backup restores only onto its own Node (`conflict`). Only SUCCEEDED backups restore; `phase_busy` unless the server is READY.',
      params: BackupParams, body: RestoreBackup, response: ServerDetail, errors: ['phase_busy', 'conflict', 'node_unavailable'],
      audit: { action: 'backup.restore', targetKind: 'backup' },
      handler: async ({ caller, params, body, audit }) => b.restore.restore(caller, params.backupId, body, audit),
    }),
    route({
      method: 'POST', path: '/servers/{serverId}/backup-schedules', tag: 'backups', status: 201,
      summary: 'Schedule backups of the server (`backups.create`): a 5-field cron expression in UTC, keeping `retain` (1–100) of them.',
      description: 'Each run is a `SCHEDULED` backup (audited with the `SYSTEM` actor); after each successful run the oldest beyond `retain` are deleted. A run missed while the Controller was down runs once at its start. Manual backups are never deleted by retention.',
      params: ServerParams, body: CreateSchedule, response: BackupSchedule,
      audit: { action: 'backup-schedule.create', targetKind: 'backup-schedule' },
      handler: async ({ caller, params, body, audit }) => b.schedules.create(caller, params.serverId, body, audit),
    }),
    route({
      method: 'GET', path: '/servers/{serverId}/backup-schedules', tag: 'backups', status: 200,
      summary: 'The server\'s backup schedules (`backups.read`).',
      params: ServerParams, query: PageQuery, response: Paged(BackupSchedule),
      handler: async ({ caller, params, query }) => b.schedules.listForServer(caller, params.serverId, query),
    }),
    route({
      method: 'GET', path: '/backup-schedules', tag: 'backups', status: 200,
      summary: 'Every backup schedule you may read (`backups.read` in the server\'s team).',
      query: PageQuery, response: Paged(BackupSchedule),
      handler: async ({ caller, query }) => b.schedules.list(caller, query),
    }),
    route({
      method: 'GET', path: '/backup-schedules/{scheduleId}', tag: 'backups', status: 200,
      summary: 'One backup schedule (`backups.read`).',
      params: ScheduleParams, response: BackupSchedule,
      handler: async ({ caller, params }) => b.schedules.get(caller, params.scheduleId),
    }),
    route({
      method: 'DELETE', path: '/backup-schedules/{scheduleId}', tag: 'backups', status: 204,
      summary: 'Remove a backup schedule (`backups.create`); the backups it took stay.',
      params: ScheduleParams,
      audit: { action: 'backup-schedule.delete', targetKind: 'backup-schedule' },
      handler: async ({ caller, params, audit }) => b.schedules.delete(caller, params.scheduleId, audit),
    }),
  ];
};
