/**
 * What the Controller's timers (backup schedules, audit retention, stream guards) run on: the
 * process's timers, or a test's clock that fires them as it moves.
 */
export interface ScheduleTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Unref'd, so an armed timer never keeps the process alive on its own. */
export const processTimers: ScheduleTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
