/**
 * Keeps the failure of a pipeline's last stage (an async function consuming the streams before
 * it). When that function throws mid-stream, Node 20's pipeline rejects with the AbortError of
 * destroying the streams before it, not with the function's error (nodejs/node#62089): the
 * reason (a refused part, a full disk) would be lost. `rethrow` answers the kept one.
 */
export function consumerFailure() {
  let kept: { error: unknown } | undefined;
  return {
    wrap<T>(consume: (source: AsyncIterable<T>) => Promise<void>) {
      return async (source: AsyncIterable<T>): Promise<void> => {
        try {
          await consume(source);
        } catch (e) {
          kept ??= { error: e };
          throw e;
        }
      };
    },
    rethrow: (e: unknown): never => {
      throw kept ? kept.error : e;
    },
  };
}
