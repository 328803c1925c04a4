import type { Static } from 'typebox';
import type { LastCrashSchema } from '../schemas/servers.js';
import type { StatusCondition } from './status.js';

/** A server's last crash as its Agent reports it; held in memory only, never stored (its lines are console output). */
export type LastCrash = Static<typeof LastCrashSchema>;

/** Lines of the last crash shown in the CRASH_LOOP message, and the length each is cut to there. */
const excerptLines = 3;
const excerptChars = 200;

/** The crash as shown to a caller who may not read the console: how it ended, without what it printed. */
export const withoutConsoleLines = (crash: LastCrash | undefined): LastCrash | undefined => crash && { ...crash, lastLines: [] };

const cut = (line: string) => (line.length > excerptChars ? `${line.slice(0, excerptChars)}…` : line);

/**
 * The conditions as shown: CRASH_LOOP's message (which names how the last crash ended) followed by
 * the last lines the game printed. Done when answering, so the stored message holds no console line.
 */
export function explainCrashLoop(conditions: StatusCondition[], crash: LastCrash | undefined): StatusCondition[] {
  if (!crash || crash.lastLines.length === 0) return conditions;
  const excerpt = crash.lastLines.slice(-excerptLines).map(cut).join(' | ');
  return conditions.map((c) => (c.reason === 'CRASH_LOOP' ? { ...c, message: `${c.message} Last lines: ${excerpt}` } : c));
}
