import type { Schedule, ScheduleRun } from '../../schemas/schedules.js';
import type { ScheduleDoc, ScheduleRunDoc } from '../../store/records.js';

/** A run as the API shows it: never its claim key or server. */
export const runView = (doc: ScheduleRunDoc): ScheduleRun => ({
  id: doc._id, scheduleId: doc.scheduleId, scheduledFor: doc.scheduledFor, result: doc.result, tasks: doc.tasks.map((t) => ({ ...t })),
  ...(doc.startedAt !== undefined ? { startedAt: doc.startedAt } : {}),
  ...(doc.finishedAt !== undefined ? { finishedAt: doc.finishedAt } : {}),
  ...(doc.reason !== undefined ? { reason: doc.reason } : {}),
});

/** A schedule as the API shows it, with its next minute (when enabled and it fires again) and its latest run. */
export const scheduleView = (doc: ScheduleDoc, nextRunAt: Date | undefined, lastRun: ScheduleRunDoc | null): Schedule => ({
  id: doc._id, serverId: doc.serverId, name: doc.name, cron: doc.cron, timezone: doc.timezone, enabled: doc.enabled, onlyWhenRunning: doc.onlyWhenRunning,
  tasks: doc.tasks.map((t) => ({ ...t })),
  ...(nextRunAt ? { nextRunAt: nextRunAt.toISOString() } : {}),
  ...(lastRun ? { lastRun: { id: lastRun._id, result: lastRun.result, ...(lastRun.startedAt !== undefined ? { startedAt: lastRun.startedAt } : {}) } } : {}),
  createdAt: doc.createdAt, updatedAt: doc.updatedAt, updatedBy: doc.updatedBy,
});
