import type { ServerUsage, UsageSample } from '../../../api/types';

/** uPlot's columns: times in seconds, then one value per time; null draws nothing (a gap). */
export type UsageColumns = [number[], (number | null)[]];

/**
 * One measure of the samples as chart columns. Samples exist only while the server ran on its
 * Node, so a pause longer than one and a half intervals gets a null after its last sample:
 * the line breaks there instead of drawing a slope across the time nothing ran.
 */
export function columnsOf(usage: ServerUsage, measure: (sample: UsageSample) => number | undefined): UsageColumns {
  const times: number[] = [];
  const values: (number | null)[] = [];
  let previous: number | undefined;
  for (const sample of usage.items) {
    const at = Date.parse(sample.at) / 1000;
    if (previous !== undefined && at - previous > usage.intervalSeconds * 1.5) {
      times.push(previous + usage.intervalSeconds);
      values.push(null);
    }
    times.push(at);
    values.push(measure(sample) ?? null);
    previous = at;
  }
  return [times, values];
}
