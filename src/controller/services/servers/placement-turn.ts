import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { ServerRoom } from './room.js';

/**
 * Placement on the fleet, one decision at a time: what fits where is read from every
 * reservation and port, so two of them (a create, a resize, a reinstall, a migration's target, a
 * port move) never both take the last room.
 */
export class PlacementTurn {
  private readonly mutex = new KeyedMutex();

  constructor(private readonly room: ServerRoom) {}

  /** `work` with the room's view of the hosts, once no other placement is deciding. */
  run<T>(work: (room: ServerRoom) => Promise<T>): Promise<T> {
    return this.mutex.run('placement', () => work(this.room));
  }
}
