import {
  Backup, BackupDestination, BackupListQuery, BackupParams, BackupSchedule, CreateDestination, CreateSchedule, RestoreBackup,
  ServerBackupListQuery, TakeBackup, UpdateDestination,
} from '../../schemas/backups.js';
import { ServerDetail, ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const deletedServers = 'Once the server is deleted, its backups are for global administrators only.';

const destination = recordRoutes({ tag: 'backups', kind: 'backup-destination', path: '/backup-destinations', id: 'destinationId' });
const backup = recordRoutes({ tag: 'backups', kind: 'backup', path: '/backups', id: 'backupId' });
const schedule = recordRoutes({ tag: 'backups', kind: 'backup-schedule', path: '/backup-schedules', id: 'scheduleId' });

export const backupRoutes = (s: Services) => {
  const b = s.backups;
  return [
    destination.list(() => b.destinations, {
      summary: 'Backup destinations (global administrators), in creation order; `controller` (kind CONTROLLER) exists from the first start.',
      item: BackupDestination,
    }),
    destination.create(() => b.destinations, {
      summary: 'Add a backup destination (global administrators).',
      description: '`NODE_DIRECTORY`: backups are kept under `path` (absolute, at most 1,024 characters) on the Node that takes each one, and can be restored onto servers on that Node only. `CONTROLLER` (no `path`): kept by the Controller (its data dir, or GridFS on MongoDB), restorable on any Node. `S3` (`endpoint`, `region`, `bucket`, `accessKeyId`, `secretAccessKey` required; `prefix`, `forcePathStyle` optional): kept in an S3-compatible bucket under `<prefix>/<teamId>/`, restorable on any Node; the Controller alone holds the credentials, and the Agents upload and download the objects with requests it presigns (every Node must reach the endpoint). Creating one writes, reads and deletes a small object under the prefix (10 s at most); what failed is an `invalid_request` naming the field to mend. The secret access key is kept encrypted and never returned. Names are unique regardless of case.',
      body: CreateDestination, response: BackupDestination, errors: ['conflict'],
    }),
    destination.update(() => b.destinations, {
      summary: 'Give an S3 destination a new key (global administrators): rotation without moving its backups.',
      description: 'The new key is checked like at creation (a small object written, read and deleted) before it replaces the old one; what failed is an `invalid_request` naming the field. `accessKeyId` keeps the current one when absent. Backups under way finish with the key they began with. Other kinds have no key (`invalid_request`). The secret is kept encrypted and never returned.',
      body: UpdateDestination, response: BackupDestination,
    }),
    destination.delete(() => b.destinations, {
      summary: 'Remove a backup destination (global administrators); `conflict` while backups or schedules use it, and for the built-in one.',
      errors: ['conflict'],
    }),
    route({
      method: 'POST', path: '/servers/{serverId}/backups', tag: 'backups', status: 202,
      summary: 'Take a backup of the server (`backups.create`); default destination: the built-in `controller`.',
      description: 'Answers at once with the backup `PENDING`; it runs when the server\'s earlier backups have finished, then is `RUNNING`, and `SUCCEEDED` or `FAILED` (with `error`). A running server is quiesced while its files are read (save-off, save-all, save-on for Minecraft). Refused with `phase_busy` while the server is PROVISIONING or DELETING.',
      params: ServerParams, body: TakeBackup, response: Backup, errors: ['phase_busy'],
      audit: { action: 'backup.create', targetKind: 'backup' },
      handler: async ({ caller, params, body, audit }) => b.backups.take(caller, params.serverId, body, audit),
    }),
    backup.listForServer(() => b.backups, { summary: 'The server\'s backups, newest first (`backups.read`).', query: ServerBackupListQuery, item: Backup }),
    backup.list(() => b.backups, {
      summary: 'Every backup you may read (`backups.read` in the server\'s team), newest first; filters: serverId, state.',
      description: deletedServers, query: BackupListQuery, item: Backup,
    }),
    backup.get(() => b.backups, { summary: 'One backup (`backups.read`).', description: deletedServers, response: Backup }),
    backup.delete(() => b.backups, {
      summary: 'Delete a finished backup (`backups.create`): its manifest, then the content no other backup shares.',
      description: `\`conflict\` while it is PENDING or RUNNING or being restored; \`node_unavailable\` when its Node (NODE_DIRECTORY) cannot be reached. ${deletedServers}`,
      errors: ['conflict', 'node_unavailable'],
    }),
    route({
      method: 'POST', path: '/backups/{backupId}/restore', tag: 'backups', status: 202,
      summary: 'Restore a backup (`backups.restore`): the server goes RESTORING, then READY and back to its desired runtime state.',
      description: 'The workflow takes a `PRE_RESTORE` backup to the same destination, stops the server, fills a stage from the backup (every file checked against its sha256), replaces the server\'s files (`.cairn` installed again with the backup\'s software), and sets the recorded software and plugins. A failure rolls the server back to READY with a `RESTORE_FAILED` condition saying what failed. `serverId` restores into another server of the same template (global administrators restore a deleted server\'s backup this way; another template is `invalid_request`). A NODE_DIRECTORY backup restores only onto its own Node (`conflict`). Only SUCCEEDED backups restore; `phase_busy` unless the server is READY. A backup holding more than the server\'s `resources.diskBytes` is refused with `insufficient_storage` before anything stops.',
      params: BackupParams, body: RestoreBackup, response: ServerDetail, errors: ['phase_busy', 'conflict', 'node_unavailable', 'insufficient_storage'],
      audit: { action: 'backup.restore', targetKind: 'backup' },
      handler: async ({ caller, params, body, audit }) => s.restore.restore(caller, params.backupId, body, audit),
    }),
    route({
      method: 'POST', path: '/servers/{serverId}/backup-schedules', tag: 'backups', status: 201,
      summary: 'Schedule backups of the server (`backups.create`): a 5-field cron expression in UTC, keeping `retain` (1–100) of them.',
      description: 'Each run is a `SCHEDULED` backup (audited with the `SYSTEM` actor); after each successful run the oldest beyond `retain` are deleted. A run missed while the Controller was down runs once at its start. Manual backups are never deleted by retention.',
      params: ServerParams, body: CreateSchedule, response: BackupSchedule,
      audit: { action: 'backup-schedule.create', targetKind: 'backup-schedule' },
      handler: async ({ caller, params, body, audit }) => b.schedules.create(caller, params.serverId, body, audit),
    }),
    schedule.listForServer(() => b.schedules, { summary: 'The server\'s backup schedules (`backups.read`).', item: BackupSchedule }),
    schedule.list(() => b.schedules, { summary: 'Every backup schedule you may read (`backups.read` in the server\'s team).', item: BackupSchedule }),
    schedule.get(() => b.schedules, { summary: 'One backup schedule (`backups.read`).', response: BackupSchedule }),
    schedule.delete(() => b.schedules, { summary: 'Remove a backup schedule (`backups.create`); the backups it took stay.' }),
  ];
};
