import { createActor, type Actor } from 'xstate';
import type { ServerDoc } from '../store/records.js';
import { serverMachine, type ServerEvent, type ServerPhaseContext } from './server-machine.js';
import type { Phase, ServerDesired } from '../domain/server-spec.js';

export type ServerActor = Actor<typeof serverMachine>;

/**
 * One standalone root actor per server, kept in a Map (children of one parent scale badly). A
 * server's actor is made when it is first sent an event (`restore` from its stored snapshot), not
 * at start: it has no timers and no children, so until then its snapshot is all of it, and 100,000
 * actors made at start cost seconds and hundreds of MiB.
 */
export class ServerFleet {
  private readonly actors = new Map<string, ServerActor>();

  create(serverId: string, desired: ServerDesired, at: string): ServerActor {
    const actor = ServerFleet.fresh(desired, at);
    this.actors.set(serverId, actor);
    return actor;
  }

  /** Rehydrates an actor from its record, which holds the machine's whole state (see `persistedSnapshotOf`). */
  restore(doc: ServerDoc): ServerActor {
    const actor = ServerFleet.revived(doc);
    this.actors.set(doc._id, actor);
    return actor;
  }

  /**
   * An actor of a new server that the fleet does not hold: a dry run decides on it and stops it,
   * so nothing of it outlives the request.
   */
  static fresh(desired: ServerDesired, at: string): ServerActor {
    return createActor(serverMachine, { input: { desired, at } }).start();
  }

  /** An actor of a stored server that the fleet does not hold (its own actor is left as it is): what a dry run sends an event to. */
  static revived(doc: ServerDoc): ServerActor {
    return createActor(serverMachine, {
      snapshot: persistedSnapshotOf(doc) as never,
      input: { desired: doc.desired, at: doc.createdAt },
    }).start();
  }

  get(serverId: string): ServerActor | undefined {
    return this.actors.get(serverId);
  }

  remove(serverId: string): void {
    this.actors.get(serverId)?.stop();
    this.actors.delete(serverId);
  }

  get size(): number {
    return this.actors.size;
  }

  stopAll(): void {
    for (const actor of this.actors.values()) actor.stop();
    this.actors.clear();
  }
}

/**
 * The machine's persisted snapshot, rebuilt from the record: its state is the phase (DELETED is
 * never stored: the record goes), its context the generation, desired spec, workflow and failures
 * the record keeps beside it. Storing xstate's own snapshot too made every record a third bigger.
 */
export function persistedSnapshotOf(doc: Pick<ServerDoc, 'phase' | 'generation' | 'desired' | 'workflow' | 'failure' | 'failureReason' | 'workflowFailure'>): unknown {
  const context: ServerPhaseContext = {
    generation: doc.generation, desired: doc.desired,
    ...(doc.workflow ? { workflow: doc.workflow } : {}),
    ...(doc.failure ? { failure: doc.failure } : {}),
    ...(doc.failureReason ? { failureReason: doc.failureReason } : {}),
    ...(doc.workflowFailure ? { workflowFailure: doc.workflowFailure } : {}),
  };
  return { status: 'active', value: doc.phase, historyValue: {}, context, children: {} };
}

/** Would the actor accept this event? (A refused event would leave the snapshot silently unchanged.) */
export const accepts = (actor: ServerActor, event: ServerEvent) => actor.getSnapshot().can(event);

export interface MachineState {
  phase: Phase;
  context: ServerPhaseContext;
  done: boolean;
}

export function machineState(actor: ServerActor): MachineState {
  const snapshot = actor.getSnapshot();
  const value = snapshot.value;
  return { phase: value === 'DELETED' ? 'DELETING' : value, context: snapshot.context, done: snapshot.status === 'done' };
}
