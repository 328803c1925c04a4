import { KeyedMutex } from '../../../shared/keyed-mutex.js';
import type { ServerRoom } from './room.js';

/**
 * Placement on the fleet, one decision at a time where decisions can collide: what fits where is
 * read from every reservation and port, so two of them (a create, a resize, a reinstall, a
 * migration's target, a port move) never both take the last room.
 *
 * A decision that reads or changes one Node's room only (a resize in place) takes that Node's turn
 * (`runOnNode`): resizes on different Nodes cannot take each other's room, so they run side by
 * side, and one resize no longer waits for the write of another on the other side of the fleet
 * (each turn spans its record's durable write; under a slow disk, a fleet-wide line of resizes
 * queued one fsync after another). Every other decision (`run`) waits until the Node turns begun
 * before it have ended, and Node turns asked for after it wait for it.
 */
export class PlacementTurn {
  private readonly nodes = new KeyedMutex();
  /** The last fleet-wide decision asked for (settled, never rejected): Node turns asked for later start after it. */
  private fleetWide: Promise<void> = Promise.resolve();
  /** Node turns asked for and not yet over: a fleet-wide decision starts after all of them. */
  private readonly onNodes = new Set<Promise<unknown>>();

  constructor(private readonly room: ServerRoom) {}

  /** `work` with the room's view of the hosts, once no other placement is deciding. */
  run<T>(work: (room: ServerRoom) => Promise<T>): Promise<T> {
    const before = [this.fleetWide, ...this.onNodes];
    const turn = Promise.allSettled(before).then(() => work(this.room));
    this.fleetWide = turn.then(() => undefined, () => undefined);
    return turn;
  }

  /** `work` that reads and changes only `nodeId`'s room, once no fleet-wide decision and no other decision on that Node is running. */
  runOnNode<T>(nodeId: string, work: (room: ServerRoom) => Promise<T>): Promise<T> {
    const turn = this.fleetWide.then(() => this.nodes.run(nodeId, () => work(this.room)));
    const over = turn.then(() => undefined, () => undefined);
    this.onNodes.add(over);
    void over.then(() => this.onNodes.delete(over));
    return turn;
  }
}
