import { Cron } from 'croner';
import { invalidRequest } from '../../core/errors.js';

/**
 * A schedule's cron expression: exactly five fields (minute, hour, day of month, month, day of
 * week) as croner reads them, evaluated in UTC. Croner also takes seconds and nicknames
 * (`@daily`); the API does not, so every schedule reads the same everywhere.
 */
export function parseCron(expression: string, field = 'body.cron'): Cron {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) throw invalidRequest(`${field}: a cron expression has five fields (minute hour day-of-month month day-of-week); this has ${fields.length}.`);
  try {
    return new Cron(fields.join(' '), { paused: true, timezone: 'UTC' });
  } catch (e) {
    throw invalidRequest(`${field}: ${(e as Error).message}.`);
  }
}

/** The first run strictly after `after`; undefined when the expression never fires again. */
export function nextRun(expression: string, after: Date): Date | undefined {
  return parseCron(expression).nextRun(after) ?? undefined;
}
