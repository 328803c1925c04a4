import type { Condition } from '../../shared/link/messages.js';

/** One console line kept with a crash: its text and when the game printed it (ms since the epoch). */
export interface CrashLine {
  text: string;
  at: number;
}

/** A crash as the Agent keeps it in memory: when, how the game ended, and what it printed last. */
export interface CrashRecord {
  at: number;
  code: number | null;
  signal: string | null;
  lastLines: readonly CrashLine[];
  /** Set when the kernel ended the game for its memory limit (the limit, in bytes, it had). */
  oomKilledAt?: number;
}

/** The reason of a crash the memory limit caused, on the crash and as the server's condition. */
export const oomKilledReason = 'OOM_KILLED';

const mib = (bytes: number) => {
  const value = bytes / (1024 * 1024);
  return Number.isInteger(value) ? `${value} MiB` : `${value.toFixed(1)} MiB`;
};

/** The OOM_KILLED condition's words: the limit the game hit. */
export const oomKilledMessage = (limitBytes: number) => `killed: out of memory at its ${mib(limitBytes)} limit`;

/** Lines kept with each crash: enough to show the stack trace's head, little enough to relay on every status. */
export const crashLinesKept = 20;
/** Each kept line is cut at this many characters (the whole line stays in the console replay). */
export const crashLineChars = 1000;

/** The newest lines a crash keeps, each cut to length. */
export function keptCrashLines(lines: readonly CrashLine[]): CrashLine[] {
  return lines.slice(-crashLinesKept).map((line) => (line.text.length > crashLineChars ? { ...line, text: `${line.text.slice(0, crashLineChars)}…` } : line));
}

export const isCrash = (code: number | null, signal: string | null) => !(code === 0 && signal === null);

/** How a game ended, in words: "exit code 1", "signal SIGKILL", or "no exit status" (it never ran). */
export function endedWith(crash: Pick<CrashRecord, 'code' | 'signal' | 'oomKilledAt'>): string {
  if (crash.oomKilledAt !== undefined) return `out of memory at its ${mib(crash.oomKilledAt)} limit`;
  if (crash.signal) return `signal ${crash.signal}`;
  if (crash.code !== null) return `exit code ${crash.code}`;
  return 'no exit status';
}

export function crashLoopMessage(crashes: number, windowSeconds: number, last: CrashRecord | undefined): string {
  const lastEnd = last ? ` The last one ended with ${endedWith(last)}.` : '';
  return `Crashed ${crashes} times within ${windowSeconds} s; automatic restarts stopped until acknowledged.${lastEnd}`;
}

/** A crash as kept: its lines cut to what a status carries, and the memory limit when the kernel killed it for that. */
export const crashAt = (at: number, code: number | null, signal: string | null, lastLines: readonly CrashLine[] = [], oomKilledAt?: number): CrashRecord =>
  ({ at, code, signal, lastLines: keptCrashLines(lastLines), ...(oomKilledAt === undefined ? {} : { oomKilledAt }) });

/** A launch that failed before any game ran: no exit status, and with no console to show, its one line is why the Agent could not start it. */
export const launchFailureAt = (at: number, error: unknown): CrashRecord =>
  crashAt(at, null, null, [{ text: `The Agent could not start the game: ${error instanceof Error ? error.message : String(error)}`, at }]);

const oomKilledId = (serverId: string) => `${serverId}:oom-killed`;

/**
 * OOM_KILLED stands while the last crash is one the memory limit caused: it explains that crash
 * (and a crash loop it leads to) until a crash of another kind replaces it.
 */
export function withOomCondition(conditions: Condition[], serverId: string, crash: CrashRecord): Condition[] {
  const others = conditions.filter((c) => c.reason !== oomKilledReason);
  if (crash.oomKilledAt === undefined) return others;
  return [...others, { id: oomKilledId(serverId), reason: oomKilledReason, message: oomKilledMessage(crash.oomKilledAt), since: new Date(crash.at).toISOString() }];
}
