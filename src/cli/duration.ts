/** Durations of flags such as `--timeout 60s`: a whole or decimal number with `ms`, `s`, `m` or `h`; a bare number is seconds. */
const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export class DurationError extends Error {}

export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new DurationError(`${JSON.stringify(text)} is not a duration (e.g. 30s, 5m, 1h)`);
  return Math.round(Number(m[1]) * units[(m[2] as string | undefined) ?? 's']);
}
