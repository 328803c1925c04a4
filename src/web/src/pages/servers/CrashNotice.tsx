import type { ServerDetail } from '../../api/types';
import { formatTime } from '../../format/units';

type LastCrash = NonNullable<ServerDetail['status']['lastCrash']>;

function howItEnded(crash: LastCrash): string {
  if (crash.reason === 'OOM_KILLED') return 'killed at its memory limit';
  if (crash.signal) return `ended by ${crash.signal}`;
  return crash.exitCode !== undefined ? `exit code ${crash.exitCode}` : 'no exit status';
}

/**
 * The server's last crash, kept on the page after an automatic restart brought the game back: a
 * crash that healed itself still says the world may have lost its last minutes, and the lines say why.
 * The API holds it in memory only (its lines are console output), so it is gone after a Controller restart.
 */
export function CrashNotice({ server }: { server: ServerDetail }) {
  const crash = server.status.lastCrash;
  if (!crash) return null;
  const { startedAt, runtimeState } = server.status;
  const back = startedAt && Date.parse(startedAt) > Date.parse(crash.at) && (runtimeState === 'RUNNING' || runtimeState === 'STARTING');
  const last = crash.lastLines.at(-1);
  // Counted since an operator last started it: a server that keeps crashing and coming back says so.
  const restarts = crash.restarts ? `, restarted ${crash.restarts}× automatically` : '';
  return (
    <section className="crash-notice" aria-labelledby="crash-heading">
      <h2 id="crash-heading">Last crash</h2>
      <p>
        Crashed at {formatTime(crash.at, { seconds: true })} ({howItEnded(crash)}){restarts}.{' '}
        {back ? `Running again since ${formatTime(startedAt, { seconds: true })}; the game is ${runtimeState}.` : null}
      </p>
      {last ? <p>Its last line: <code>{last}</code></p> : null}
      {crash.lastLines.length > 1 ? (
        <details>
          <summary>The last {crash.lastLines.length} lines before the crash</summary>
          <pre className="crash-lines">{crash.lastLines.join('\n')}</pre>
        </details>
      ) : null}
    </section>
  );
}
