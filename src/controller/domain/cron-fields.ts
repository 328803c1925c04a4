/**
 * The five fields of a schedule's cron expression checked in Cairn's own words, so a refusal names
 * the field that is wrong and what it takes rather than passing on the cron library's message.
 */

interface CronField {
  name: string;
  min: number;
  max: number;
  /** Names the field takes for its numbers, from `min` on (months, days of the week). */
  names?: readonly string[];
}

const fields: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  // 7 is Sunday too, as in most crons.
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

export const cronExample = "'0 4 * * *' (every day at 04:00 UTC)";

/** A number or a name of the field, or undefined when it is neither or out of range. */
function valueOf(text: string, field: CronField): number | undefined {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return field.min + named;
  if (!/^\d{1,2}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= field.min && n <= field.max ? n : undefined;
}

/** One comma-separated part: `*`, `N` or `N-M`; `*` and `N-M` optionally `/STEP`. */
function partIsValid(part: string, field: CronField): boolean {
  const pieces = part.split('/');
  if (pieces.length > 2) return false;
  const [range, step] = [pieces[0], pieces.length === 2 ? pieces[1] : undefined];
  if (step !== undefined && (!/^\d{1,2}$/.test(step) || Number(step) === 0)) return false;
  if (range === '*') return true;
  const ends = range.split('-');
  if (ends.length > 2) return false;
  const values = ends.map((e) => valueOf(e, field));
  if (values.some((v) => v === undefined)) return false;
  // A step needs a range to step through: croner refuses `5/10`.
  if (values.length === 1) return step === undefined;
  return values[0]! <= values[1]!;
}

const accepted = (field: CronField) =>
  `${field.min}-${field.max}${field.names ? ` or ${field.names[0]}-${field.names[field.names.length - 1]}` : ''}`;

/**
 * What is wrong with the expression, said for an operator, or undefined when every field reads.
 * Ranges (`1-5`), lists (`1,15`) and steps (`*\/15`) are taken; seconds, nicknames (`@daily`) and
 * extensions (`L`, `W`, `#`) are not.
 */
export function cronProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/).filter((p) => p !== '');
  if (parts.length !== fields.length) {
    return `cron must have 5 fields: minute hour day-of-month month day-of-week, e.g. ${cronExample}; this has ${parts.length}.`;
  }
  for (const [i, field] of fields.entries()) {
    const text = parts[i];
    if (!text.split(',').every((p) => partIsValid(p, field))) {
      return `cron field ${i + 1} (${field.name}) '${text}' is not valid: use *, a number ${accepted(field)}, a range a-b, a list a,b or a step */n, e.g. ${cronExample}.`;
    }
  }
  return undefined;
}
