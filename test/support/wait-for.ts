/**
 * Polls `probe` until it returns a value that is not undefined/false, or fails after `timeoutMs` with the last value
 * seen, or what `explain` says of it (a failure on CI must say where things stood, not only that they did not get there).
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string; explain?: () => string } = {},
): Promise<T> {
  const { timeoutMs = 8000, intervalMs = 25, what = 'condition', explain } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const seen = explain ? explain() : last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
