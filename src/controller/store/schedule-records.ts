import type { ScheduleRunReason, ScheduleRunResult, ScheduleTask, ScheduleTaskAction, ScheduleTaskResult } from '../schemas/schedules.js';

/** A server's schedule: ordered tasks run at the minutes its cron names, in its time zone. */
export interface ScheduleDoc {
  _id: string;
  serverId: string;
  /** The server's team, kept for listing and permissions without reading the server. */
  teamId: string;
  name: string;
  /** Five fields, one space between them. */
  cron: string;
  /** An IANA name in its canonical spelling. */
  timezone: string;
  enabled: boolean;
  onlyWhenRunning: boolean;
  tasks: ScheduleTask[];
  /**
   * Since when the schedule fires as it is (created, enabled, or its cron or time zone changed):
   * a minute before it was never due, so it is never recorded as MISSED.
   */
  dueSince: string;
  createdAt: string;
  updatedAt: string;
  /** The last editor: runs act as this user, with its permissions at the time of the run. */
  updatedBy: string;
}

/**
 * One run of a schedule. Inserted (RUNNING, or MISSED) before anything runs: `claimKey` is unique,
 * so a minute is claimed once, whichever Controller or life of one tries.
 */
export interface ScheduleRunDoc {
  _id: string;
  scheduleId: string;
  serverId: string;
  /** `<scheduleId>@<scheduledFor ISO>` for a minute of the cron; `<scheduleId>@now@<run id>` for a run asked for. */
  claimKey: string;
  scheduledFor: string;
  startedAt?: string;
  finishedAt?: string;
  result: ScheduleRunResult;
  reason?: ScheduleRunReason;
  /** The Controller carrying a RUNNING run out (its id of that start): a sweep leaves the runs of a live Controller alone. */
  runBy?: string;
  /** The tasks ended so far, in order; at the end every task has its result (NOT_RUN for those not reached). */
  tasks: { action: ScheduleTaskAction; result: ScheduleTaskResult; detail?: string }[];
}
