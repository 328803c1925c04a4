import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/** What the Cron field shows under an expression it can read. */
export interface CronPreview {
  /** The expression in words: "At 04:00, only on Monday". */
  words: string;
  /** Its next runs, soonest first. */
  next: Date[];
}

/** The API takes five fields only; croner and cronstrue would also read seconds and nicknames (`@daily`). */
const cronFieldCount = 5;

/**
 * An expression as the API reads it, in words and its next `count` runs in `timezone`, or
 * undefined while it does not read (the API's refusal, naming the field, says why once sent).
 */
export function previewCron(expression: string, timezone: string, count = 5, after = new Date()): CronPreview | undefined {
  const fields = expression.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== cronFieldCount) return undefined;
  const normal = fields.join(' ');
  try {
    const next = new Cron(normal, { timezone, paused: true }).nextRuns(count, after);
    return { words: cronstrue.toString(normal, { use24HourTimeFormat: true }), next };
  } catch {
    return undefined;
  }
}

/** A run's time as the people of `timezone` read it: "Monday, November 30, 2026 at 04:00". */
export const formatInZone = (date: Date, timezone: string) =>
  date.toLocaleString(undefined, { timeZone: timezone, dateStyle: 'full', timeStyle: 'short', hourCycle: 'h23' });

/**
 * A schedule's time, short, as its own zone's clocks read it ("Nov 30, 2026, 04:00"), so it
 * matches the cron whatever the browser's zone; to the second (`seconds`) where a run's start
 * and end are told apart; "—" when there is none.
 */
export function formatScheduleTime(iso: string | undefined, timezone: string, { seconds = false } = {}): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { timeZone: timezone, dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short', hourCycle: 'h23' });
}

/** The IANA names the browser knows, UTC first (some browsers list it under Etc/ only). */
export function timezoneChoices(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return ['UTC', ...zones.filter((z) => z !== 'UTC')];
}
