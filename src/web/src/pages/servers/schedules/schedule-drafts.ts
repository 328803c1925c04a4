// With their extensions: the unit tests type-check this file under Node's module resolution.
import type { CreateServerSchedule, Schedule } from '../../../api/types.js';
import { draftOfTask, newTask, taskBodies, taskControlFields, type TaskDraft } from './task-drafts.js';

/** What the New and Edit schedule forms hold: the request's fields, every one set, with the tasks as typed (text until sent). */
export type ScheduleDraft = Omit<Required<CreateServerSchedule>, 'tasks'> & { tasks: TaskDraft[] };

export const emptySchedule = (): ScheduleDraft => ({ name: '', cron: '', timezone: 'UTC', enabled: true, onlyWhenRunning: false, tasks: [newTask(0)] });

/** A stored schedule in the form, to be changed. */
export const draftOfSchedule = (schedule: Schedule): ScheduleDraft => ({
  name: schedule.name, cron: schedule.cron, timezone: schedule.timezone, enabled: schedule.enabled, onlyWhenRunning: schedule.onlyWhenRunning,
  tasks: schedule.tasks.map((t, i) => draftOfTask(t, i)),
});

/**
 * The request body for the draft and what cannot be sent as typed, by request field. A backup task
 * with no destination chosen gets `fallbackDestination` (the Controller's default) when there is one.
 */
export function scheduleBody(draft: ScheduleDraft, fallbackDestination: string): { body: Required<CreateServerSchedule>; problems: Record<string, string> } {
  const withDestinations = draft.tasks.map((d) => (d.action === 'backup' && d.destinationId === '' && fallbackDestination ? { ...d, destinationId: fallbackDestination } : d));
  const { tasks, problems } = taskBodies(withDestinations);
  return {
    body: { name: draft.name.trim(), cron: draft.cron.trim().split(/\s+/).join(' '), timezone: draft.timezone, enabled: draft.enabled, onlyWhenRunning: draft.onlyWhenRunning, tasks },
    problems,
  };
}

/** The request fields the schedule's controls show problems for; the form's own alert shows any other. */
export const scheduleControlFields = (draft: ScheduleDraft, withDestination: boolean) =>
  ['name', 'cron', 'timezone', 'enabled', 'onlyWhenRunning', ...taskControlFields(draft.tasks, withDestination)];
