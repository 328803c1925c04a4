import type { Logger } from '../../shared/logger.js';
import { Sleeper } from './sleeper.js';
import type { LastStatus } from './sleeping-status.js';

export interface SleepingPort {
  /** When the server fell asleep: reported for it while its runner is not up yet. */
  since: string;
  port: number;
  host?: string;
  status: LastStatus;
  wakeOnJoin: boolean;
}

interface Entry {
  since: string;
  port: number;
  /** Undefined while the port is being bound (or bound again after a failure). */
  sleeper?: Sleeper;
  onWake?: (player: string) => void;
  /** A login that came before anyone listened (an Agent just restarted): told to the first listener. */
  pendingWake?: string;
  retry?: NodeJS.Timeout;
  /** The bind under way: a close waits for it, so the port is free when the close resolves. */
  binding: Promise<void>;
}

/** How long a port another program holds waits before the sleeper tries to bind it again. */
const rebindMs = 1000;

/**
 * The Agent's sleeping ports, one per sleeping server. A port is opened as soon as the Agent knows
 * the server sleeps (at its start, from the server's marker, before any Controller is heard) and
 * kept across the server's runner taking it over; closing resolves once the port is free for the
 * game. A port another program holds is tried again every second while the server sleeps.
 */
export class SleeperPool {
  private readonly entries = new Map<string, Entry>();
  private readonly closing = new Map<string, Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** When the server whose port is answered fell asleep; undefined when none is. */
  sleepingSince(serverId: string): string | undefined {
    return this.entries.get(serverId)?.since;
  }

  /** Answers the server's port (or keeps answering it); `onWake` hears the first login, now or one that came before. */
  open(serverId: string, port: SleepingPort, onWake?: (player: string) => void): void {
    const current = this.entries.get(serverId);
    if (current && current.port === port.port) {
      current.onWake = onWake;
      if (onWake && current.pendingWake !== undefined) queueMicrotask(() => onWake(current.pendingWake!));
      return;
    }
    if (current) void this.close(serverId);
    const entry: Entry = { since: port.since, port: port.port, onWake, binding: Promise.resolve() };
    this.entries.set(serverId, entry);
    entry.binding = this.bind(serverId, entry, port, true);
  }

  private async bind(serverId: string, entry: Entry, port: SleepingPort, first: boolean): Promise<void> {
    // A close of this server's previous sleeper frees the port first.
    await this.closing.get(serverId);
    if (this.entries.get(serverId) !== entry) return;
    try {
      const sleeper = await Sleeper.listen({
        port: port.port, host: port.host, status: port.status, wakeOnJoin: port.wakeOnJoin,
        onWake: (player) => {
          if (entry.onWake) entry.onWake(player);
          else entry.pendingWake = player;
        },
      });
      // A close that came meanwhile waits for this bind, then closes what it made.
      entry.sleeper = sleeper;
    } catch (err) {
      // Closed meanwhile: nothing to try again.
      if (this.entries.get(serverId) !== entry) return;
      if (first) this.logger.warn({ err, serverId, port: port.port }, 'the sleeping server\'s port could not be answered; trying again every second');
      entry.retry = setTimeout(() => {
        entry.binding = this.bind(serverId, entry, port, false);
      }, rebindMs);
    }
  }

  /** Stops answering the server's port; resolves once it is free (at once when nothing answered it). */
  close(serverId: string): Promise<void> {
    const entry = this.entries.get(serverId);
    if (!entry) return this.closing.get(serverId) ?? Promise.resolve();
    this.entries.delete(serverId);
    clearTimeout(entry.retry);
    const done = entry.binding.then(() => entry.sleeper?.close()).finally(() => {
      if (this.closing.get(serverId) === done) this.closing.delete(serverId);
    });
    this.closing.set(serverId, done);
    return done;
  }

  /** Resolves once every port opened so far is bound (or waits for its next try). */
  async bound(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.binding));
  }

  /** Every port freed (the Agent stops; the servers stay asleep by their markers). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.close(id)));
  }
}
