import { IdParams, PageQuery, Paged } from '../../schemas/common.js';
import { CreateServerSchedule, Schedule, ScheduleRun, UpdateServerSchedule } from '../../schemas/schedules.js';
import { ServerParams } from '../../schemas/servers.js';
import type { Services } from '../../services/index.js';
import { recordRoutes } from '../record-routes.js';
import { route } from '../route.js';

const schedule = recordRoutes({ tag: 'schedules', kind: 'schedule', path: '/schedules', id: 'scheduleId' });
const edit = 'Needs `servers.update` and the permission of each task (`command`: servers.command; `start`: servers.start; `stop`: servers.stop; `restart`: servers.stop and servers.start; `backup`: backups.create) in the server\'s team; the caller becomes the schedule\'s editor (`updatedBy`), as whom its runs act: a run whose editor no longer holds those permissions is SKIPPED `forbidden`.';
const runs = 'A run starts within 2 s of its minute and claims it in the store first, so a schedule never runs twice for one minute, nor twice at once (`already_running`); it is SKIPPED when the editor lost a task\'s permission (`forbidden`), the server is in a workflow (`phase_busy`) or, with `onlyWhenRunning`, not RUNNING (`not_running`). A minute that passed while no Controller was up is recorded MISSED (the last one only), never run late; a run cut off by a Controller\'s end is FAILED `interrupted` at the next start, its remaining tasks NOT_RUN.';

export const scheduleRoutes = (s: Services) => {
  const schedules = () => s.schedules.schedules;
  return [
    route({
      method: 'POST', path: '/servers/{serverId}/schedules', tag: 'schedules', status: 201,
      summary: 'Add a schedule to the server: tasks (1–20, in order) run at the minutes a 5-field cron names in `timezone` (default UTC).',
      description: `${edit} Each task may wait \`offsetSeconds\` (0–3600) from the run's start, and never starts before the task before it ended; a failed task ends the run FAILED unless it has \`continueOnFailure\`.`,
      params: ServerParams, body: CreateServerSchedule, response: Schedule,
      audit: { action: 'schedule.create', targetKind: 'schedule' },
      handler: async ({ caller, params, body, audit }) => schedules().create(caller, params.serverId, body, audit),
    }),
    schedule.listForServer(schedules, { summary: 'The server\'s schedules (`servers.read`), in creation order, each with its next minute and last run.', item: Schedule }),
    schedule.get(schedules, { summary: 'One schedule (`servers.read`).', response: Schedule }),
    schedule.update(schedules, { summary: 'Change a schedule: any field.', description: edit, body: UpdateServerSchedule, response: Schedule }),
    schedule.delete(schedules, { summary: 'Remove a schedule and its runs.', description: 'Needs what changing it needs.' }),
    route({
      method: 'POST', path: '/schedules/{scheduleId}/run', tag: 'schedules', status: 202,
      summary: 'Run now, once: answered with the run as it begins (or SKIPPED with its reason).',
      description: `Needs what changing the schedule needs; the run acts as the schedule's editor. ${runs}`,
      params: IdParams('scheduleId'), response: ScheduleRun,
      audit: { action: 'schedule.run', targetKind: 'schedule' },
      handler: async ({ caller, params, audit }) => schedules().run(caller, params.scheduleId, audit),
    }),
    route({
      method: 'GET', path: '/schedules/{scheduleId}/runs', tag: 'schedules', status: 200,
      summary: 'The schedule\'s runs, newest first, each with its tasks\' results (the last 100 that ended, and any under way).',
      description: runs,
      params: IdParams('scheduleId'), query: PageQuery, response: Paged(ScheduleRun),
      handler: async ({ caller, params, query }) => schedules().runs(caller, params.scheduleId, query),
    }),
  ];
};
