import type { LastCrash } from '../../domain/last-crash.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServerChange } from '../servers/change-hub.js';
import type { NotificationEvent } from './webhook-outbox.js';

type Seen = { runtime?: string; crashLoop: boolean; sleeping: boolean; wokeAt?: string };

const seenOf = (doc: ServerDoc): Seen => ({
  runtime: doc.observed.runtimeState,
  crashLoop: doc.observed.conditions.some((c) => c.reason === 'CRASH_LOOP'),
  sleeping: doc.observed.sleeping !== undefined,
  wokeAt: doc.observed.lastWake?.at,
});

export const serverOf = (doc: Pick<ServerDoc, '_id' | 'name' | 'teamId'>) => ({ id: doc._id, name: doc.name, teamId: doc.teamId });

/**
 * A server's events read off its record's changes: it started, stopped, or went into a crash
 * loop. What each server was last seen as is kept (seeded from the store at start), so a change
 * is told once and a Controller restart tells nothing twice.
 */
export class ServerTransitions {
  private readonly seen = new Map<string, Seen>();

  seed(docs: ServerDoc[]): void {
    for (const doc of docs) this.seen.set(doc._id, seenOf(doc));
  }

  changed({ doc, deleted }: ServerChange): NotificationEvent[] {
    if (deleted) {
      this.seen.delete(doc._id);
      return [];
    }
    const before = this.seen.get(doc._id) ?? { crashLoop: false, sleeping: false };
    const now = seenOf(doc);
    this.seen.set(doc._id, now);
    const server = serverOf(doc);
    const events: NotificationEvent[] = [];
    if (now.runtime === 'RUNNING' && before.runtime !== 'RUNNING' && before.runtime !== undefined) events.push({ event: 'server.started', server, details: {} });
    // A server that went to sleep stopped for want of players: that is told as server.slept alone.
    if (now.runtime === 'STOPPED' && (before.runtime === 'RUNNING' || before.runtime === 'STOPPING') && !now.sleeping) events.push({ event: 'server.stopped', server, details: {} });
    if (now.sleeping && !before.sleeping) events.push({ event: 'server.slept', server, details: { since: doc.observed.sleeping!.since } });
    if (now.wokeAt && now.wokeAt !== before.wokeAt) {
      const player = doc.observed.lastWake?.player;
      events.push({ event: 'server.woke', server, details: { at: now.wokeAt, ...(player ? { player } : {}) } });
    }
    if (now.crashLoop && !before.crashLoop) {
      const condition = doc.observed.conditions.find((c) => c.reason === 'CRASH_LOOP');
      events.push({ event: 'server.crash_loop', server, details: { message: condition?.message ?? '' } });
    }
    return events;
  }
}

/**
 * Crashes as the Agents report them: a server's last crash is told when its time is new. The
 * first report after a start carries the crash the Agent last saw, which is told only when it is
 * newer than the status the store held for the server at this Controller's start: a crash while no
 * Controller heard the Agent (down, or its link cut) is told when the Agent reports again, and one
 * told before is older than the status its report wrote, so a restart tells nothing twice.
 */
export class CrashReports {
  private readonly lastAt = new Map<string, string>();
  /** When the store last heard each server at this Controller's start (0: never). */
  private readonly storedAt = new Map<string, number>();

  /** `startedAtMs`: for servers created after the start, whose every crash is new. */
  constructor(private readonly startedAtMs: number) {}

  seed(docs: ServerDoc[]): void {
    for (const doc of docs) this.storedAt.set(doc._id, doc.observed.reportedAt ? Date.parse(doc.observed.reportedAt) : 0);
  }

  /** The crash's details when it is new: how the game ended, never what it printed. */
  reported(serverId: string, crash: LastCrash | undefined, removed: boolean): Record<string, unknown> | undefined {
    if (removed) {
      this.lastAt.delete(serverId);
      this.storedAt.delete(serverId);
      return undefined;
    }
    if (!crash) return undefined;
    const before = this.lastAt.get(serverId);
    this.lastAt.set(serverId, crash.at);
    const isNew = before === undefined ? Date.parse(crash.at) > (this.storedAt.get(serverId) ?? this.startedAtMs - 1) : before !== crash.at;
    if (!isNew) return undefined;
    return {
      at: crash.at,
      ...(crash.exitCode !== undefined ? { exitCode: crash.exitCode } : {}),
      ...(crash.signal !== undefined ? { signal: crash.signal } : {}),
      ...(crash.reason !== undefined ? { reason: crash.reason } : {}),
      ...(crash.restarts !== undefined ? { restarts: crash.restarts } : {}),
    };
  }
}
