import type { ServerDetail } from '../../api/types';
import { formatTime } from '../../format/units';
import { StateText, StateWithWords } from './server-state';

/**
 * The server page's runtime state: the game's, or SLEEPING with the time it fell asleep and what
 * wakes it (a player's join only when the server's `sleep.wakeOnJoin` says so).
 */
export function RuntimeState({ server }: { server: Pick<ServerDetail, 'status' | 'sleep'> }) {
  const { status } = server;
  if (!status.sleeping) return <StateWithWords value={status.runtimeState} />;
  // The watch stream says a server sleeps before its detail, which has the time, is fetched again.
  const since = status.sleepingSince ? ` since ${formatTime(status.sleepingSince)}` : '';
  const wakes = server.sleep?.wakeOnJoin === false ? 'Start wakes it' : 'a player joining or Start wakes it';
  return <><StateText value="SLEEPING" /><span className="state-words"> Sleeping{since}: the game is stopped while nobody plays; {wakes}.</span></>;
}
