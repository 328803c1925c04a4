import { checkTimezone, nextRun, normalCron } from '../../core/cron.js';
import { invalidRequest } from '../../core/errors.js';
import { taskProblem } from '../../domain/schedule-tasks.js';
import type { ScheduleTask } from '../../schemas/schedules.js';
import type { BackupDestinations } from '../backups/destinations.js';
import { checkCommand } from '../console/console.js';

/** When a schedule's cron and time zone are what they are: the cron in its stored spelling, the zone's canonical name. */
export interface Timing {
  cron: string;
  timezone: string;
}

/** The cron read in the time zone; each refusal names its field. The expression must fire at least once more. */
export function checkTiming(cron: string, timezone: string, now: Date): Timing {
  const zone = checkTimezone(timezone);
  if (!nextRun(cron, now, zone)) throw invalidRequest('body.cron: the expression never fires.');
  return { cron: normalCron(cron), timezone: zone };
}

/**
 * What the schema cannot say of the tasks, each refusal naming its field (`body.tasks[2].command`):
 * the fields of each action, console lines as the console takes them, destinations that exist.
 */
export async function checkTasks(tasks: readonly ScheduleTask[], destinations: Pick<BackupDestinations, 'get'>): Promise<void> {
  for (const [i, task] of tasks.entries()) {
    const at = `body.tasks[${i}]`;
    const problem = taskProblem(task, at);
    if (problem) throw invalidRequest(problem);
    if (task.command !== undefined) checkCommand(task.command, `${at}.command`);
    if (task.warnCommand !== undefined) checkCommand(task.warnCommand, `${at}.warnCommand`);
    if (task.destinationId !== undefined && !(await destinations.get(task.destinationId))) {
      throw invalidRequest(`${at}.destinationId: no backup destination ${task.destinationId}.`);
    }
  }
}
