// With its extension: the unit tests type-check this file under Node's module resolution.
import type { Backup, BackupDestination, BackupState, Node, ServerDetail } from '../../api/types.js';

export const backupStates: readonly BackupState[] = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'];

/** A backup still waiting for its turn or being taken. */
export const isUnfinished = (backup: Pick<Backup, 'state'>) => backup.state === 'PENDING' || backup.state === 'RUNNING';

/** How often a list with an unfinished backup is read again. */
export const livePollMs = 2_000;

/**
 * The refetch interval of a backups list: every 2 s while one of its backups is unfinished (or
 * `busy` says more are coming, e.g. a restore about to take its PRE_RESTORE backup), never otherwise.
 */
export function backupPollInterval(pages: readonly { items: readonly Pick<Backup, 'state'>[] }[] | undefined, busy = false): number | false {
  if (busy) return livePollMs;
  return pages?.some((page) => page.items.some(isUnfinished)) ? livePollMs : false;
}

const tones: Record<BackupState, string> = { PENDING: 'busy', RUNNING: 'busy', SUCCEEDED: 'good', FAILED: 'bad' };

/** The `.state` class of a backup state: the enum value stays the text. */
export const backupStateClass = (state: BackupState) => `state ${tones[state]}`;

/** `{template: 'paper', version: '1.21.4', build: '130'}` → "paper 1.21.4 (build 130)". */
export const formatSoftware = (software: Backup['software']) =>
  `${software.template} ${software.version}${software.build ? ` (build ${software.build})` : ''}`;

/** What a destination means for the backups kept there, said in a hint. */
export function describeDestination(destination: Pick<BackupDestination, 'kind' | 'path' | 'bucket'>): string {
  switch (destination.kind) {
    case 'CONTROLLER': return 'Kept by the Controller: can be restored onto a server on any Node.';
    case 'S3': return `Kept in the S3 bucket ${destination.bucket ?? ''} by the Controller: can be restored onto a server on any Node.`;
    case 'NODE_DIRECTORY': return `Kept in ${destination.path ?? 'a directory'} on the Node that takes the backup: restorable only onto servers of that Node.`;
  }
}

/** The destination a form starts with: the Controller's own `controller`, as the API's default is. */
export function defaultDestinationId(destinations: readonly Pick<BackupDestination, 'id' | 'name'>[] | undefined): string {
  return destinations?.find((d) => d.name === 'controller')?.id ?? destinations?.[0]?.id ?? '';
}

export const minRetain = 1;
export const maxRetain = 100;

export interface ScheduleCheck {
  cron?: string;
  retain?: string;
  /** The parsed `retain`, when it is valid. */
  retainValue?: number;
}

/**
 * Checks what the New schedule form can check before sending: five cron fields and a whole
 * `retain` from 1 to 100. The API parses the expression itself and says what is wrong with it.
 */
export function checkSchedule(cron: string, retain: string): ScheduleCheck {
  const fields = cron.trim().split(/\s+/).filter(Boolean);
  const cronError = fields.length === 5 ? undefined : 'Enter five fields: minute, hour, day of month, month, day of week (UTC), e.g. 0 4 * * *.';
  const text = retain.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  const retainValid = Number.isInteger(n) && n >= minRetain && n <= maxRetain;
  return {
    cron: cronError,
    retain: retainValid ? undefined : `Enter a whole number from ${minRetain} to ${maxRetain}.`,
    retainValue: retainValid ? n : undefined,
  };
}

/**
 * The line Back up now shows about the backup it started, from the backup's current state: it
 * follows the backup to its end rather than keep the state the request answered.
 */
export function backupStatusText(backup: Pick<Backup, 'state' | 'error'>): string {
  if (backup.state === 'PENDING') return 'Backup started: PENDING, waiting for its turn.';
  if (backup.state === 'RUNNING') return 'Backing up: RUNNING.';
  if (backup.state === 'SUCCEEDED') return 'Backup done: SUCCEEDED.';
  return `Backup FAILED: ${backup.error ?? 'no reason given'}.`;
}

/** The line about a restore, from the server's current detail: in progress, failed (its RESTORE_FAILED condition), or done. */
export function restoreStatusText(server: Pick<ServerDetail, 'name' | 'phase' | 'workflow' | 'conditions'>): string {
  if (server.phase === 'RESTORING') return `Restoring ${server.name}: ${server.workflow?.step ?? 'starting'}.`;
  const failed = server.conditions.find((c) => c.reason === 'RESTORE_FAILED');
  if (failed) return `Restoring ${server.name} failed: ${failed.message}`;
  return `${server.name} is restored: its phase is ${server.phase}.`;
}

const workflowVerbs: Record<string, string> = { MIGRATE: 'Migrating', RESTORE: 'Restoring', UPDATE: 'Updating' };

/** A server's running workflow as one line: `Migrating: copying`. */
export function workflowText(workflow: Pick<NonNullable<ServerDetail['workflow']>, 'kind' | 'step'>): string {
  return `${workflowVerbs[workflow.kind] ?? workflow.kind}: ${workflow.step}`;
}

/** The Nodes a server can be migrated to: every other Node that is not revoked. */
export function migrationTargets<N extends Pick<Node, 'id' | 'adminState'>>(nodes: readonly N[] | undefined, server: Pick<ServerDetail, 'nodeId'>): N[] {
  return (nodes ?? []).filter((n) => n.id !== server.nodeId && n.adminState !== 'REVOKED');
}
