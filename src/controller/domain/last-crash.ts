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

/**
 * Why a start ended before its ready line, as an update's UPDATE_FAILED says it: how the process
 * ended and the last line it printed, where the cause usually is (a Java too old, a missing class).
 * Unlike CRASH_LOOP's excerpt this one line is kept in the stored message: it was printed before the
 * ready line, so before any player could join, and without it the cause would vanish with the crash.
 */
export function exitedBeforeReady(crash: LastCrash | undefined): string {
  const said = 'the server exited before it was ready';
  if (!crash) return said;
  const how = crash.reason === 'OOM_KILLED' ? 'killed at its memory limit'
    : crash.signal ? `ended by ${crash.signal}`
      : crash.exitCode !== undefined ? `exit code ${crash.exitCode}` : undefined;
  const last = crash.lastLines.at(-1);
  return `${said}${how ? ` (${how})` : ''}${last ? `; its last line: ${cut(last)}` : ''}`;
}
