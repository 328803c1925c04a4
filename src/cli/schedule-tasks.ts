import type { ScheduleTask } from './api-types.js';
import { UsageError } from './errors.js';

export interface TaskFlags {
  command?: string[];
  /** The backup destination's id, resolved from `--backup`. */
  backupDestinationId?: string;
  restart?: boolean;
  /** `--warn 60,30,10`. */
  warn?: string;
}

/**
 * A schedule's tasks from `cairn create schedule`'s flags, in a fixed order whatever the order of
 * the flags: the commands (as given), then the backup, then the restart, so a nightly schedule
 * saves and backs up the world before the restart that its players were warned of.
 */
export function tasksFromFlags(flags: TaskFlags): ScheduleTask[] {
  if (flags.warn !== undefined && !flags.restart) throw new UsageError('--warn needs --restart: the warnings come before the restart\'s stop');
  const tasks: ScheduleTask[] = (flags.command ?? []).map((command) => ({ action: 'command', command }));
  if (flags.backupDestinationId !== undefined) tasks.push({ action: 'backup', destinationId: flags.backupDestinationId });
  if (flags.restart) tasks.push({ action: 'restart', ...(flags.warn === undefined ? {} : { warnSeconds: parseWarnings(flags.warn) }) });
  if (tasks.length === 0) throw new UsageError('give the schedule something to do: --command LINE, --backup DESTINATION or --restart');
  return tasks;
}

/** `60,30,10` → [60, 30, 10]: whole seconds before the stop; the API checks their range. */
function parseWarnings(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) throw new UsageError(`--warn "${text}": give whole seconds before the stop, separated by commas, e.g. 60,30,10`);
  return parts.map(Number);
}
