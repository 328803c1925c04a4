import type { ConsoleEndEvent, ConsoleLineEvent, ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { watchUntil } from './wait-server.js';
import { ApiError, CliError } from './errors.js';
import { readEvents } from './sse.js';

/**
 * The most lines the console stream replays (its `tail` maximum): a reconnection after a restart
 * asks for all of them, so the new run's first lines, printed before it reconnected, are not missed.
 */
const maxTail = 1000;
/** While a reconnection found no new run yet, it is tried again at a change of the server, or after this long at the latest. */
const staleRetryMs = 5000;

const running = (s: ServerItem) => s.runtimeState === 'STARTING' || s.runtimeState === 'RUNNING';
const gone = (s: ServerItem | undefined) => s === undefined || s.desiredState === 'DELETED';
/** Stopped for good: asked to stop and no longer running (a crash or a restart leaves it desired RUNNING). */
const stoppedForGood = (s: ServerItem) => s.desiredState === 'STOPPED' && !running(s) && s.runtimeState !== 'STOPPING';

/** Ends of a stream while the game may still run (contract: the console stream's `end` reasons): reconnected, not a restart. */
const streamEnds = new Set(['lagging', 'shutdown', 'node_unavailable']);
const gameEnded = (end: ConsoleEndEvent | undefined): boolean => end !== undefined && !streamEnds.has(end.reason);

function how(end: ConsoleEndEvent): string {
  if (end.exitCode !== undefined) return `exit code ${end.exitCode}`;
  if (end.signal) return `signal ${end.signal}`;
  return end.reason;
}

/** The line between two streams: a new run of the game, or the same console read again after the stream (not the game) ended. */
const between = (end: ConsoleEndEvent | undefined) =>
  gameEnded(end) ? `--- server restarted (${how(end!)}) ---\n` : `--- console reconnected (after ${end?.reason ?? 'the stream closed'}) ---\n`;

/** What one console connection showed: whether it carried a run not printed before, and how it ended. */
interface Connection {
  fresh: boolean;
  end?: ConsoleEndEvent;
}

/**
 * `cairn logs -f`: prints the console and keeps following it across restarts, as `kubectl logs -f`
 * follows a restarted container. Each run's stream ends with the game; the server's state then
 * says what comes next: running again (a restart, a crash it restarts from, an update) is
 * followed after a `--- server restarted (…) ---` line (`--- console reconnected (…) ---` when
 * the stream ended but not the game: lagging, a Controller restart); stopped on request or deleted ends it,
 * saying why on stderr. A reconnection replays the Agent's last lines; those at or before the
 * newest line already seen belong to a run already printed and are skipped.
 */
export async function followLogs(client: CliClient, server: ServerItem, tail: number | undefined, out: (text: string) => void): Promise<void> {
  let newest = -Infinity;
  let lastEnd: ConsoleEndEvent | undefined;
  const connect = async (first: boolean): Promise<Connection> => {
    // A tail of 0 still asks for one line (not printed): its time tells a later replay's old lines from new ones.
    const ask = !first ? maxTail : tail === undefined ? undefined : Math.max(tail, 1);
    let unprinted = first && tail === 0 ? 1 : 0;
    const seen: Connection = { fresh: first };
    // Lines of one run often share a millisecond: only what came before this connection is compared.
    const printedUpTo = newest;
    await readEvents(client, `/servers/${server.id}/console${ask === undefined ? '' : `?tail=${ask}`}`, (e) => {
      if (e.event === 'replayed') unprinted = 0;
      if (e.event === 'end') {
        seen.end = e.data as ConsoleEndEvent;
        return 'stop';
      }
      if (e.event !== 'line') return;
      const line = e.data as ConsoleLineEvent;
      const at = Date.parse(line.at);
      if (!first && at <= printedUpTo) return;
      newest = Math.max(newest, at);
      if (unprinted > 0) {
        unprinted -= 1;
        return;
      }
      if (!seen.fresh) {
        seen.fresh = true;
        out(between(lastEnd));
      }
      out(`${line.text}\n`);
    });
    return seen;
  };
  let connection = await connect(true);
  for (;;) {
    if (connection.end?.reason === 'access_revoked') return void process.stderr.write('(logs ended: access to the console was revoked)\n');
    if (connection.fresh) lastEnd = connection.end;
    // After a connection that showed nothing new, only a change of the server (or the retry interval) is worth another try.
    const { met, last } = await watchUntil(client, server.id, (s, live) => gone(s) || stoppedForGood(s!) || (running(s!) && (connection.fresh || live)),
      connection.fresh ? undefined : AbortSignal.timeout(staleRetryMs));
    if (met && gone(last)) return void process.stderr.write('(logs ended: the server was deleted)\n');
    if (met && stoppedForGood(last!)) return void process.stderr.write(`(logs ended: the server stopped${gameEnded(lastEnd) ? `, ${how(lastEnd!)}` : ''})\n`);
    try {
      connection = await connect(false);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return void process.stderr.write('(logs ended: the server was deleted)\n');
      // Not running after all (server_not_running), its Node away, the Controller restarting: wait for the next change.
      if (!(e instanceof ApiError && (e.status === 409 || e.status === 503)) && !(e instanceof CliError)) throw e;
      connection = { fresh: false };
    }
  }
}
