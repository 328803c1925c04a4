import { Cron } from 'croner';
import { invalidRequest } from './errors.js';
import { cronExample, cronProblem } from '../domain/cron-fields.js';

/** The expression as stored: its five fields separated by one space. */
export const normalCron = (expression: string) => expression.trim().split(/\s+/).join(' ');

/**
 * A cron expression of a backup schedule or a server schedule: exactly five fields (minute, hour,
 * day of month, month, day of week) as croner reads them, evaluated in `timezone` (backup
 * schedules: UTC). Croner also takes seconds and nicknames (`@daily`); the API does not, so every
 * schedule reads the same everywhere. `timezone` must have passed `checkTimezone`.
 */
export function parseCron(expression: string, field = 'body.cron', timezone = 'UTC'): Cron {
  const problem = cronProblem(expression);
  if (problem) throw invalidRequest(`${field}: ${problem}`);
  try {
    return new Cron(normalCron(expression), { paused: true, timezone });
  } catch {
    // The fields read, yet croner refuses: its wording is not the API's, so say it in ours.
    throw invalidRequest(`${field}: not a cron expression Cairn can run, e.g. ${cronExample}.`);
  }
}

/** The first run strictly after `after`; undefined when the expression never fires again. */
export function nextRun(expression: string, after: Date, timezone = 'UTC'): Date | undefined {
  return parseCron(expression, 'body.cron', timezone).nextRun(after) ?? undefined;
}

/** The latest run at or before `at`; undefined when there was none. */
export function previousRun(expression: string, at: Date, timezone = 'UTC'): Date | undefined {
  // croner's previous runs are strictly before the reference: a minute on `at` itself counts.
  return parseCron(expression, 'body.cron', timezone).previousRuns(1, new Date(at.getTime() + 1)).at(0);
}

/**
 * An IANA time zone name as the runtime knows it (`Europe/Berlin`, `UTC`), answered in its
 * canonical spelling so `utc` and `UTC` are stored alike; anything else names the field.
 */
export function checkTimezone(name: string, field = 'body.timezone'): string {
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw invalidRequest(`${field}: '${name}' is not an IANA time zone name such as UTC or Europe/Berlin.`);
  }
  try {
    new Cron('* * * * *', { paused: true, timezone: canonical }).nextRun();
  } catch {
    throw invalidRequest(`${field}: '${name}' is a time zone the scheduler cannot use.`);
  }
  return canonical;
}
