import { join } from 'node:path';
import { readConsole } from './console-reader.js';
import { ShimConnection } from './shim-connection.js';
import { parseGameExit, type GameExit, type OutputLine } from './shim-protocol.js';
import { readJsonFile, stateFiles } from './state-dir.js';

/** As many lines as one console replay may ask for. */
export const keptLines = 1000;
/** …but never more text than this per server, whatever the lines' length. */
const keptBytes = 1024 * 1024;

/** The newest lines whose text fits the byte budget, oldest first. */
export function withinBudget(lines: readonly OutputLine[]): OutputLine[] {
  let bytes = 0;
  let first = lines.length;
  while (first > 0) {
    bytes += Buffer.byteLength(lines[first - 1].text);
    if (bytes > keptBytes) break;
    first -= 1;
  }
  return lines.slice(first);
}

/**
 * The end of an exited game's console, read from its shim before the shim is let go (the shim's
 * ring leaves with it). Nothing when the shim cannot be read within `timeoutMs`: an exit is never
 * held up for its lines.
 */
export async function readEndOfConsole(socketPath: string, timeoutMs: number): Promise<OutputLine[]> {
  let conn: ShimConnection;
  try {
    conn = await ShimConnection.open(socketPath, timeoutMs);
  } catch {
    return [];
  }
  const lines: OutputLine[] = [];
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      readConsole(conn, { tail: keptLines, onEnd: done }, (line) => lines.push(line), timeoutMs).catch(done);
    });
  } finally {
    conn.close();
  }
  return withinBudget(lines);
}

/** True when this exit was reported already (moved to `last-exit.json`), e.g. by an Agent that died before releasing the shim. */
export async function exitAlreadyReported(stateDir: string, exit: GameExit): Promise<boolean> {
  if ((await readJsonFile(join(stateDir, stateFiles.exit))) !== null) return false;
  try {
    const reported = parseGameExit(await readJsonFile(join(stateDir, stateFiles.reportedExit)));
    return reported.at === exit.at && reported.cause === exit.cause;
  } catch {
    return false;
  }
}
