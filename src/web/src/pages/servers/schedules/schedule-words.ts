// With their extensions: the unit tests type-check this file under Node's module resolution.
import type { ScheduleRunReason, ScheduleRunResult, ScheduleTask, ScheduleTaskAction, ScheduleTaskResult } from '../../../api/types.js';

/** Records over the API's enums: the compiler refuses a list that misses or invents a value. */
export const actionLabels: Record<ScheduleTaskAction, string> = {
  command: 'Send a console command',
  start: 'Start the server',
  stop: 'Stop the server',
  restart: 'Restart the server',
  backup: 'Back up the server',
};

export const reasonWords: Record<ScheduleRunReason, string> = {
  not_running: 'the server was not running (only when running)',
  phase_busy: 'the server was busy with another operation',
  forbidden: 'the schedule\'s last editor no longer holds the tasks\' permissions',
  already_running: 'the run before was still going',
  interrupted: 'the Controller stopped during the run',
  server_gone: 'the server was deleted',
};

const runTones: Record<ScheduleRunResult | ScheduleTaskResult, string> = {
  RUNNING: 'busy', SUCCEEDED: 'good', FAILED: 'bad', SKIPPED: 'busy', MISSED: 'bad', NOT_RUN: 'busy',
};

/** The `.state` class of a run's or a task's result: the enum value stays the text. */
export const resultClass = (result: ScheduleRunResult | ScheduleTaskResult) => `state ${runTones[result]}`;

/** A task in one line: "restart, warning 60, 30, 10 s before", "command `say hi`", each with its offset. */
export function describeTask(task: ScheduleTask): string {
  const parts: string[] = [task.action];
  if (task.command !== undefined) parts.push(`\`${task.command}\``);
  if (task.warnSeconds?.length) parts.push(`warning ${task.warnSeconds.join(', ')} s before`);
  if (task.retain !== undefined) parts.push(`keeping ${task.retain}`);
  if (task.offsetSeconds) parts.push(`at +${task.offsetSeconds} s`);
  if (task.continueOnFailure) parts.push('goes on if it fails');
  return parts.join(', ');
}
