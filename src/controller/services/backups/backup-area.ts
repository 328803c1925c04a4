import type { BackupDoc } from '../../store/records.js';

/**
 * A destination keeps each team's backups in an area of their own, so content is deduplicated
 * within a team only: a backup's `storedBytes` (or its speed) must not tell one team what
 * another holds. Backups taken before areas existed stay in the destination's root, where they
 * are restored, pruned and collected as before.
 */
export function areaTeamOf(backup: Pick<BackupDoc, 'teamId' | 'teamArea'>): string | undefined {
  return backup.teamArea ? backup.teamId : undefined;
}

/** The directory of a team's area under a NODE_DIRECTORY destination's path (the path itself for the root area). */
export function nodeAreaPath(destinationPath: string, teamId: string | undefined): string {
  return teamId ? `${destinationPath.replace(/\/+$/, '')}/teams/${teamId}` : destinationPath;
}
