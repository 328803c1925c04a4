import { Cron } from 'croner';
import { invalidRequest } from '../../core/errors.js';
import { cronExample, cronProblem } from './cron-fields.js';

/**
 * A schedule's cron expression: exactly five fields (minute, hour, day of month, month, day of
 * week) as croner reads them, evaluated in UTC. Croner also takes seconds and nicknames
 * (`@daily`); the API does not, so every schedule reads the same everywhere.
 */
export function parseCron(expression: string, field = 'body.cron'): Cron {
  const problem = cronProblem(expression);
  if (problem) throw invalidRequest(`${field}: ${problem}`);
  try {
    return new Cron(expression.trim().split(/\s+/).join(' '), { paused: true, timezone: 'UTC' });
  } catch {
    // The fields read, yet croner refuses: its wording is not the API's, so say it in ours.
    throw invalidRequest(`${field}: not a cron expression Cairn can run, e.g. ${cronExample}.`);
  }
}

/** The first run strictly after `after`; undefined when the expression never fires again. */
export function nextRun(expression: string, after: Date): Date | undefined {
  return parseCron(expression).nextRun(after) ?? undefined;
}
