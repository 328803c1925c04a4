/**
 * What a sleeping server's port says in the game's place: its last status with nobody online and
 * a description that tells a player to join, and the reason a login is turned away with while the
 * game starts.
 */

/** What the game last answered a status ping with: kept while it runs, answered while it sleeps. */
export interface LastStatus {
  version: { name: string; protocol: number };
  maxPlayers: number;
  /** The description as the game sent it: a JSON text component (a string, or an object with `text`, `extra`, colours). */
  description: string | object;
}

export const sleepingPrefix = 'Sleeping: join to wake. ';

/** The status JSON: the game's own description follows the prefix as a child component, so its colours and formatting stay. */
export function sleepingStatusJson(last: LastStatus): string {
  return JSON.stringify({
    version: last.version,
    players: { online: 0, max: last.maxPlayers },
    description: { text: sleepingPrefix, extra: [last.description] },
  });
}

/** The login disconnect's reason, a JSON text component as the login state takes it in every version. */
export const startingReason = JSON.stringify({ text: 'This server is starting: join again in a moment.' });

/** The reason when joining does not wake the server (`sleep.wakeOnJoin` false). */
export const asleepReason = JSON.stringify({ text: 'This server is asleep: an operator starts it.' });
