// With their extensions: the unit tests type-check this file under Node's module resolution.
import type { DefaultWarnCommand, MaxScheduleTasks, MaxTaskOffsetSeconds, ScheduleTask, ScheduleTaskAction } from '../../../api/types.js';

/** The API's limits and default, typed by their literal types in the schemas so a change there fails to compile here. */
export const maxTasks: MaxScheduleTasks = 20;
export const maxOffsetSeconds: MaxTaskOffsetSeconds = 3600;
export const defaultWarnCommand: DefaultWarnCommand = 'say Restarting in {seconds} seconds';

/** One task of the New schedule form as typed: text until it is sent. */
export interface TaskDraft {
  /** Keeps a task's controls (and what is typed in them) with it when another is removed or moved. */
  key: number;
  action: ScheduleTaskAction;
  command: string;
  /** "60,30,10". */
  warnSeconds: string;
  warnCommand: string;
  destinationId: string;
  retain: string;
  offsetSeconds: string;
  continueOnFailure: boolean;
}

export const newTask = (key: number, action: ScheduleTaskAction = 'restart'): TaskDraft => ({
  key, action, command: '', warnSeconds: '', warnCommand: '', destinationId: '', retain: '', offsetSeconds: '', continueOnFailure: false,
});

/** A stored task as the form shows it, to be changed and sent again (the Edit schedule form). */
export const draftOfTask = (task: ScheduleTask, key: number): TaskDraft => ({
  key, action: task.action, command: task.command ?? '', warnSeconds: task.warnSeconds?.join(',') ?? '', warnCommand: task.warnCommand ?? '',
  destinationId: task.destinationId ?? '', retain: task.retain?.toString() ?? '', offsetSeconds: task.offsetSeconds?.toString() ?? '',
  continueOnFailure: task.continueOnFailure ?? false,
});

/** The request field of a task's property, as the API names it in a problem: `tasks[1].command`. */
export const taskField = (index: number, property: keyof ScheduleTask) => `tasks[${index}].${property}`;

/** The properties of each action's task besides those every task has. */
const actionProperties: Record<ScheduleTaskAction, (keyof ScheduleTask)[]> = {
  command: ['command'], start: [], stop: [], restart: ['warnSeconds', 'warnCommand'], backup: ['destinationId', 'retain'],
};

/**
 * The request fields the tasks' controls show problems for, so the form's own alert leaves them
 * out; without a Destination control (`withDestination` false) a destination problem stays the form's.
 */
export const taskControlFields = (drafts: readonly TaskDraft[], withDestination: boolean) => drafts.flatMap((d, i) =>
  [...actionProperties[d.action], 'action' as const, 'offsetSeconds' as const, 'continueOnFailure' as const]
    .filter((p) => withDestination || p !== 'destinationId')
    .map((p) => taskField(i, p)));

const wholeNumber = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);

/** The tasks to send and what cannot be sent as typed, by request field; ranges and required fields are the API's to check. */
export function taskBodies(drafts: readonly TaskDraft[]): { tasks: ScheduleTask[]; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const tasks = drafts.map((draft, i): ScheduleTask => {
    const task: ScheduleTask = { action: draft.action };
    if (draft.action === 'command') task.command = draft.command.trim();
    if (draft.action === 'restart') {
      const parts = draft.warnSeconds.split(/[\s,]+/).filter((p) => p !== '');
      const seconds = parts.map(wholeNumber);
      if (seconds.some((s) => s === undefined)) problems[taskField(i, 'warnSeconds')] = 'Enter whole seconds separated by commas, e.g. 60,30,10.';
      else if (seconds.length > 0) task.warnSeconds = seconds as number[];
      if (draft.warnCommand.trim() !== '') task.warnCommand = draft.warnCommand.trim();
    }
    if (draft.action === 'backup') {
      if (draft.destinationId !== '') task.destinationId = draft.destinationId;
      if (draft.retain.trim() !== '') {
        const retain = wholeNumber(draft.retain);
        if (retain === undefined) problems[taskField(i, 'retain')] = 'Enter a whole number of backups, or leave it empty to keep them all.';
        else task.retain = retain;
      }
    }
    if (draft.offsetSeconds.trim() !== '') {
      const offset = wholeNumber(draft.offsetSeconds);
      if (offset === undefined) problems[taskField(i, 'offsetSeconds')] = `Enter whole seconds from 0 to ${maxOffsetSeconds}.`;
      else task.offsetSeconds = offset;
    }
    if (draft.continueOnFailure) task.continueOnFailure = true;
    return task;
  });
  return { tasks, problems };
}

/** Moves the task at `from` one place up (-1) or down (+1); a move past either end changes nothing. */
export function moveTask<T>(tasks: readonly T[], from: number, by: -1 | 1): T[] {
  const to = from + by;
  if (to < 0 || to >= tasks.length) return [...tasks];
  const moved = [...tasks];
  [moved[from], moved[to]] = [moved[to], moved[from]];
  return moved;
}
