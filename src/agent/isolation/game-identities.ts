import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../runtime/state-dir.js';
import type { GameIdentity } from './game-identity.js';
import { lowestFreeUid, type UidRange } from './game-uids.js';

/** The file of the Agent's data dir that keeps which uid belongs to which server. */
export const identitiesFile = 'game-uids.json';

export class UidRangeExhaustedError extends Error {
  override readonly name = 'UidRangeExhaustedError';
}

/**
 * Which uid each server holds on this Node: given at its first boxed start, kept for its life
 * (its files are owned by it), freed when it is deleted. Writes are one at a time and atomic, so
 * two servers never get the same uid, even across an Agent crash.
 */
export class GameIdentities {
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(private readonly file: string, private readonly range: UidRange, private readonly byServer: Map<string, number>) {}

  static async load(dataDir: string, range: UidRange): Promise<GameIdentities> {
    const file = join(dataDir, identitiesFile);
    let saved: Record<string, number> = {};
    try {
      saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, number>;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const entries = Object.entries(saved).filter(([, uid]) => Number.isInteger(uid) && uid > 0);
    return new GameIdentities(file, range, new Map(entries));
  }

  /** The server's identity, when it has one. */
  get(serverId: string): GameIdentity | null {
    const uid = this.byServer.get(serverId);
    return uid === undefined ? null : { uid, gid: uid };
  }

  /** The server's identity, given now when it has none. A uid from an older, wider range is kept. */
  ensure(serverId: string): Promise<GameIdentity> {
    return this.serially(async () => {
      const held = this.get(serverId);
      if (held) return held;
      const uid = lowestFreeUid(this.range, new Set(this.byServer.values()));
      if (uid === undefined) throw new UidRangeExhaustedError(`every uid of --game-uids ${this.range.first}-${this.range.last} is taken`);
      this.byServer.set(serverId, uid);
      await this.save();
      return { uid, gid: uid };
    });
  }

  release(serverId: string): Promise<void> {
    return this.serially(async () => {
      if (this.byServer.delete(serverId)) await this.save();
    });
  }

  private save(): Promise<void> {
    return writeFileAtomic(this.file, `${JSON.stringify(Object.fromEntries(this.byServer))}\n`, 0o600);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
