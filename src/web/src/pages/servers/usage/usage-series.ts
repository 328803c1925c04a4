import type { ServerUsage, UsageSample, UsageWindow } from '../../../api/types';

/** uPlot's columns: times in seconds, then one value per time; null draws nothing (a gap). */
export type UsageColumns = [number[], (number | null)[]];

const windowSeconds: Record<UsageWindow, number> = { '10m': 600, '1h': 3_600, '6h': 21_600, '24h': 86_400 };

/**
 * One measure of the samples as chart columns spanning the whole window up to now, so the time
 * axis shows the window chosen even while the history is shorter. Samples exist only while the
 * server ran on its Node: a pause longer than one and a half intervals gets a null after its
 * last sample, and the line breaks there instead of sloping across the time nothing ran.
 */
export function columnsOf(usage: ServerUsage, measure: (sample: UsageSample) => number | undefined): UsageColumns {
  const samples = usage.items.map((sample) => [Date.parse(sample.at) / 1000, measure(sample) ?? null] as const);
  const end = Date.now() / 1000;
  const start = end - windowSeconds[usage.window];
  // The Node's clock may run ahead of or behind the browser's: a bound goes only where no sample is, so the times stay in order.
  const times: number[] = [];
  const values: (number | null)[] = [];
  if (start < (samples[0]?.[0] ?? end)) {
    times.push(start);
    values.push(null);
  }
  let previous: number | undefined;
  for (const [at, value] of samples) {
    if (previous !== undefined && at - previous > usage.intervalSeconds * 1.5) {
      times.push(previous + usage.intervalSeconds);
      values.push(null);
    }
    times.push(at);
    values.push(value);
    previous = at;
  }
  if (end > (previous ?? start)) {
    times.push(end);
    values.push(null);
  }
  return [times, values];
}
