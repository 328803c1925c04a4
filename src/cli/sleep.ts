import type { ServerItem, Sleep } from './api-types.js';
import { parseDuration } from './duration.js';
import { UsageError } from './errors.js';

/**
 * A server's `sleep` as the CLI reads and writes it (contract: "Sleeping servers"): the time empty
 * before it sleeps, given as a duration, and the same words for a setting wherever one is shown.
 */

/** `--sleep-after 10m`, a manifest's `afterEmpty: 600`: whole seconds, a bare number being seconds. The API checks the range (10 s to 24 h). */
export function sleepSeconds(text: string, where: string): number {
  const ms = parseDuration(text);
  if (ms % 1000 !== 0) throw new UsageError(`${where}: whole seconds, such as 600 or 10m`);
  return ms / 1000;
}

/** `describe` and apply's plan: `after 600s empty, wakes on join`; no setting reads `off`. */
export function sleepWords(sleep: Sleep | null | undefined): string {
  if (!sleep) return 'off';
  return `after ${sleep.afterEmptySeconds}s empty, ${sleep.wakeOnJoin === false ? 'no wake on join (cairn start wakes it)' : 'wakes on join'}`;
}

/** Whether two settings mean the same: a `wakeOnJoin` left out is true, as the API stores it. */
export function sameSleep(a: Sleep | null | undefined, b: Sleep | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.afterEmptySeconds === b.afterEmptySeconds && (a.wakeOnJoin ?? true) === (b.wakeOnJoin ?? true);
}

/**
 * The runtime state as tables show it: a sleeping server's game is STOPPED while it stays desired
 * RUNNING and CONVERGED, so without this word a sleeping server would read as one that failed to run.
 */
export const runtimeWord = (s: Pick<ServerItem, 'runtimeState' | 'sleeping'>) => (s.sleeping ? 'SLEEPING' : s.runtimeState);
