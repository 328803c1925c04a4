import type { LastCrash } from '../../shared/link/messages.js';
import { oomKilledReason, type CrashRecord } from './crash-record.js';

/** A kept crash as the server's status carries it to the Controller (lines numbered oldest first). */
export function lastCrashOf(serverId: string, crash: CrashRecord | undefined, restarts: number): LastCrash | null {
  if (!crash) return null;
  return {
    at: new Date(crash.at).toISOString(),
    exitCode: crash.code ?? 0,
    hasExitCode: crash.code !== null,
    signal: crash.signal ?? '',
    lastLines: crash.lastLines.map((line, seq) => ({ serverId, text: line.text, atUnixMs: line.at, truncated: false, seq })),
    reason: crash.oomKilledAt === undefined ? '' : oomKilledReason,
    restarts,
  };
}
