import Type, { type Static } from 'typebox';
import { maxCommandBytes } from '../../shared/console-limits.js';
import { DateTime, PrintableName, Uuid } from './common.js';

export const scheduleTaskActions = ['command', 'start', 'stop', 'restart', 'backup'] as const;
export const scheduleRunResults = ['RUNNING', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'MISSED'] as const;
/** Why a run did nothing (SKIPPED), or why it ended FAILED without a task failing (`interrupted`). */
export const scheduleRunReasons = ['not_running', 'phase_busy', 'forbidden', 'already_running', 'interrupted', 'server_gone'] as const;
/** A task's end: NOT_RUN when an earlier task failed without `continueOnFailure`, or the run ended first. */
export const scheduleTaskResults = ['SUCCEEDED', 'FAILED', 'NOT_RUN'] as const;
export const maxScheduleTasks = 20;
export const maxTaskOffsetSeconds = 3600;
export const defaultWarnCommand = 'say Restarting in {seconds} seconds';

export type ScheduleTaskAction = (typeof scheduleTaskActions)[number];
export type ScheduleRunResult = (typeof scheduleRunResults)[number];
export type ScheduleRunReason = (typeof scheduleRunReasons)[number];
export type ScheduleTaskResult = (typeof scheduleTaskResults)[number];

const CommandLine = (description: string) => Type.String({ minLength: 1, maxLength: maxCommandBytes, description });

/**
 * One step of a run. One shape for every action: the fields an action does not use are refused by
 * the service, naming them (`body.tasks[1].command`), which a union of shapes could not say.
 */
export const ScheduleTask = Type.Object({
  action: Type.Enum(scheduleTaskActions),
  command: Type.Optional(CommandLine('command (required): the console line, without the leading slash.')),
  warnSeconds: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: maxTaskOffsetSeconds }), {
    maxItems: 10, uniqueItems: true,
    description: 'restart: each warning is sent that many seconds before the stop (the task waits for the longest).',
  })),
  warnCommand: Type.Optional(CommandLine(`restart: the warning's console line; {seconds} is replaced (default "${defaultWarnCommand}").`)),
  destinationId: Type.Optional(Uuid),
  retain: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'backup: how many backups of this schedule are kept (default: all).' })),
  offsetSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: maxTaskOffsetSeconds, description: 'Seconds after the run\'s start before the task begins (and never before the task before it ended). Default 0.' })),
  continueOnFailure: Type.Optional(Type.Boolean({ description: 'Whether the run goes on when this task fails. Default false.' })),
}, { additionalProperties: false });
export type ScheduleTask = Static<typeof ScheduleTask>;

const Tasks = Type.Array(ScheduleTask, { minItems: 1, maxItems: maxScheduleTasks });
const Cron = Type.String({ minLength: 1, maxLength: 200, description: 'Five fields (minute hour day-of-month month day-of-week), evaluated in `timezone`.' });
const Timezone = Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone name, e.g. Europe/Berlin. Default UTC.' });

export const CreateServerSchedule = Type.Object({
  name: PrintableName(100),
  cron: Cron,
  timezone: Type.Optional(Timezone),
  enabled: Type.Optional(Type.Boolean()),
  onlyWhenRunning: Type.Optional(Type.Boolean({ description: 'Skip the run (`not_running`) unless the server is RUNNING when it starts.' })),
  tasks: Tasks,
}, { additionalProperties: false });
export type CreateServerSchedule = Static<typeof CreateServerSchedule>;

export const UpdateServerSchedule = Type.Object({
  name: Type.Optional(PrintableName(100)),
  cron: Type.Optional(Cron),
  timezone: Type.Optional(Timezone),
  enabled: Type.Optional(Type.Boolean()),
  onlyWhenRunning: Type.Optional(Type.Boolean()),
  tasks: Type.Optional(Tasks),
}, { additionalProperties: false });
export type UpdateServerSchedule = Static<typeof UpdateServerSchedule>;

export const ScheduleRunTask = Type.Object({
  action: Type.Enum(scheduleTaskActions),
  result: Type.Enum(scheduleTaskResults),
  detail: Type.Optional(Type.String()),
});

export const ScheduleRun = Type.Object({
  id: Uuid,
  scheduleId: Uuid,
  scheduledFor: DateTime,
  startedAt: Type.Optional(DateTime),
  finishedAt: Type.Optional(DateTime),
  result: Type.Enum(scheduleRunResults),
  reason: Type.Optional(Type.Enum(scheduleRunReasons)),
  tasks: Type.Array(ScheduleRunTask),
});
export type ScheduleRun = Static<typeof ScheduleRun>;

export const Schedule = Type.Object({
  id: Uuid,
  serverId: Uuid,
  name: Type.String(),
  cron: Type.String(),
  timezone: Type.String(),
  enabled: Type.Boolean(),
  onlyWhenRunning: Type.Boolean(),
  tasks: Type.Array(ScheduleTask),
  nextRunAt: Type.Optional(DateTime),
  lastRun: Type.Optional(Type.Object({ id: Uuid, result: Type.Enum(scheduleRunResults), startedAt: Type.Optional(DateTime) })),
  createdAt: DateTime,
  updatedAt: DateTime,
  updatedBy: Uuid,
});
export type Schedule = Static<typeof Schedule>;
