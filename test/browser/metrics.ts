import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** What the browser test measures (bytes of the first load, paint times, its own duration), for docs/web-ui.md. */
export const metricsFile = fileURLToPath(new URL('../../test-results/web-ui-metrics.json', import.meta.url));

export async function writeMetrics(values: Record<string, number | undefined>): Promise<void> {
  await mkdir(fileURLToPath(new URL('../../test-results/', import.meta.url)), { recursive: true });
  const before = await readFile(metricsFile, 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}));
  await writeFile(metricsFile, JSON.stringify({ ...before, ...values }, null, 2) + '\n');
}
