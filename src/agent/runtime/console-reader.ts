import type { AttachEnd, AttachOptions, OutputLine } from './runtime-types.js';
import type { ShimConnection } from './shim-connection.js';

/**
 * Turns a fresh shim connection into a console reader: replay and live lines to `onLine`, the
 * end (the game's exit, or a lost connection) to `onEnd` once. Returns the detach function.
 */
export async function readConsole(
  conn: ShimConnection,
  options: AttachOptions,
  onLine: (line: OutputLine) => void,
  requestTimeoutMs: number,
): Promise<() => void> {
  let ended = false;
  let detached = false;
  const end = (reason: AttachEnd) => {
    if (ended) return;
    ended = true;
    options.onEnd?.(reason);
  };
  conn.onEvent((event) => {
    if (event.type === 'line') {
      onLine(event.line);
      return;
    }
    end({ kind: 'exit', exit: event.exit });
    conn.close();
  });
  conn.onClose(() => {
    if (!detached) end({ kind: 'lost' });
  });
  const detach = () => {
    detached = true;
    conn.close();
  };
  try {
    const reply = await conn.request({ type: 'attach', tail: options.tail }, requestTimeoutMs);
    options.onAttached?.(reply.replayed);
  } catch (error) {
    detach();
    throw error;
  }
  return detach;
}
