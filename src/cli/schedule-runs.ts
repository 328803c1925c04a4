import type { ScheduleRun } from './api-types.js';
import type { CliClient } from './client.js';
import { notFound, UsageError } from './errors.js';
import type { View } from './output.js';
import { resolveSchedule, type ScheduleScope } from './schedules.js';

/** Each task as `action:RESULT`, in the run's order: what ran, what failed and what was never reached, on one line. */
const taskSummary = (run: ScheduleRun) => run.tasks.map((t) => `${t.action}:${t.result}`).join(',');

/** `cairn get runs --schedule NAME`: newest first, as the API lists them. */
export const runView: View<ScheduleRun> = {
  kind: 'run',
  plural: 'runs',
  name: (r) => r.id,
  columns: [
    { header: 'SCHEDULED-FOR', value: (r) => r.scheduledFor },
    { header: 'RESULT', value: (r) => r.result },
    { header: 'REASON', value: (r) => r.reason },
    { header: 'TASKS', value: taskSummary },
    { header: 'STARTED', value: (r) => r.startedAt, wide: true },
    { header: 'FINISHED', value: (r) => r.finishedAt, wide: true },
    { header: 'ID', value: (r) => r.id, wide: true },
  ],
};

/** The schedule `--schedule` names (narrowed by `--server` and `--team` as for `get schedules`), required. */
async function scheduleOf(client: CliClient, scope: ScheduleScope & { schedule?: string }) {
  if (scope.schedule === undefined) throw new UsageError('name the schedule: cairn get runs --schedule NAME [--server S]');
  return resolveSchedule(client, scope.schedule, scope);
}

export async function listRuns(client: CliClient, scope: ScheduleScope & { schedule?: string }): Promise<ScheduleRun[]> {
  return client.all<ScheduleRun>(`/schedules/${(await scheduleOf(client, scope)).id}/runs`);
}

/** A run by its id among its schedule's (runs have no names and no path of their own). */
export async function findRun(client: CliClient, id: string, scope: ScheduleScope & { schedule?: string }): Promise<ScheduleRun> {
  const found = (await listRuns(client, scope)).find((r) => r.id === id);
  if (!found) throw notFound('run', id);
  return found;
}
