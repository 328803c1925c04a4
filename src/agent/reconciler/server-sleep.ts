import type { Logger } from '../../shared/logger.js';
import { removeSleepMarker, writeSleepMarker, type SleepMarker } from '../sleeper/sleep-marker.js';
import type { SleeperPool } from '../sleeper/sleeper-pool.js';
import type { LastStatus } from '../sleeper/sleeping-status.js';
import type { StatusSampler } from '../status/status-sampler.js';
import type { ServerTarget } from './server-target.js';

export interface ServerSleepDeps {
  /** The server's home, where its sleep marker is kept beside its root. */
  home: string;
  /** The address games bind to: the sleeping port answers there too. */
  bindAddress: string;
  sleepers: SleeperPool;
  logger: Logger;
  /** A copy holds the server still (a quiesced backup): it is not put to sleep under the copy. */
  heldForCopy?: () => boolean;
}

/** The runner's states in which a server is (still) asleep, or may be found so. */
const sleepingStates = new Set(['asleep', 'probing', 'fallingAsleep']);

/**
 * One server's sleep on this Node, for its runner: when its players have been gone long enough,
 * the sleeping port that answers while the game is stopped, and the marker that keeps it asleep
 * across an Agent restart.
 */
export class ServerSleep {
  /** Since when its pings have said nobody plays (ms), while it runs with `sleep`. */
  private emptySince?: number;
  /** Its sleep marker is on disk (it sleeps, or slept when the Agent stopped). */
  private markerKept = false;
  /** What its sleeping port answers: the game's last status, or the marker's after an Agent restart. */
  private markedStatus?: LastStatus;

  constructor(private readonly deps: ServerSleepDeps, private readonly serverId: string) {}

  /**
   * Whether it is time to sleep, after a sample: the pings have said nobody plays for the server's
   * `afterEmptySeconds`. A ping that failed says nothing, so it starts the count over: only a game
   * that answered 0, again and again, is put to sleep; so does a copy holding the server.
   */
  emptyLongEnough(state: string, desired: ServerTarget, online: number | undefined): boolean {
    const sleep = desired.sleep;
    if (state !== 'running' || !sleep || online !== 0 || this.deps.heldForCopy?.() === true) {
      this.emptySince = undefined;
      return false;
    }
    const now = Date.now();
    this.emptySince ??= now;
    if (now - this.emptySince < sleep.afterEmptySeconds * 1000) return false;
    this.emptySince = undefined;
    return true;
  }

  /** The Agent found the server's marker at its start: its port says what the marker kept. */
  found(marker: SleepMarker): void {
    this.markerKept = true;
    this.markedStatus = marker.status;
  }

  /**
   * Answers the port while the server sleeps and writes the marker. The returned function (the
   * machine leaving `asleep`, or the Agent stopping) frees the port; the marker goes only when the
   * server itself leaves its sleep (`left`).
   */
  open(desired: ServerTarget, since: string, lastGame: StatusSampler['lastGame'], onWake: (player: string) => void): () => void {
    const { bindAddress } = this.deps;
    const host = bindAddress === '0.0.0.0' || bindAddress === '::' ? undefined : bindAddress;
    const marker: SleepMarker = {
      since, port: desired.gamePort, ...(host ? { host } : {}), status: this.markedStatus ?? lastStatusOf(lastGame, desired),
      wakeOnJoin: desired.sleep?.wakeOnJoin !== false, wakeNonce: desired.wakeNonce,
    };
    this.found(marker);
    this.deps.sleepers.open(this.serverId, { since, port: marker.port, host, status: marker.status, wakeOnJoin: marker.wakeOnJoin }, onWake);
    writeSleepMarker(this.deps.home, marker)
      .catch((err: unknown) => this.deps.logger.warn({ err, serverId: this.serverId }, 'the sleeping server\'s marker could not be written; an Agent restart would wake it'));
    return () => void this.deps.sleepers.close(this.serverId);
  }

  /** After every change of the runner's state: past its sleep (woken, stopped, deleted), no port answers and no marker stays. */
  left(state: string): void {
    if (sleepingStates.has(state) || !this.markerKept) return;
    this.markerKept = false;
    this.markedStatus = undefined;
    void this.deps.sleepers.close(this.serverId);
    removeSleepMarker(this.deps.home)
      .catch((err: unknown) => this.deps.logger.warn({ err, serverId: this.serverId }, 'the sleeping server\'s marker could not be removed'));
  }
}

/** What a sleeping port says: the game's last status, or (it never answered a ping here) its version and template. */
function lastStatusOf(game: StatusSampler['lastGame'], desired: ServerTarget): LastStatus {
  return game
    ? { version: game.version, maxPlayers: game.maxPlayers, description: game.description }
    : { version: { name: desired.software.version, protocol: -1 }, maxPlayers: 20, description: desired.software.template };
}
