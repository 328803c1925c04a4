import { createActor, type Actor, type ActorOptions, type AnyActorLogic } from 'xstate';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { ResourceAmounts, StatusCondition } from '../domain/status.js';
import type { NodeDoc, NodeStatusDoc } from '../store/records.js';
import {
  acceptsPlacementsOf, adminChange, adminStateOf, conditionsOf, connectionStateOf, nodeMachine,
  type AdminEvent, type AdminState, type ConnectionState, type NodeSnapshot, type NodeTimings,
} from './node-machine.js';
import type { ReportedCondition } from './node-conditions.js';

/** What drives xstate's delayed transitions (setTimeout/clearTimeout). */
export type TimerClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** What the fleet knows of one Node right now: the machine's states plus the Agent's last report. */
export interface NodeState {
  nodeId: string;
  adminState: AdminState;
  connectionState: ConnectionState;
  acceptsPlacements: boolean;
  conditions: StatusCondition[];
  status: NodeStatusDoc;
  /** Where other Nodes reach this one, as the administrator set it; empty means the observed address. */
  address: string;
}

/** Host facts from the Agent's hello. */
export type AgentFacts = Pick<NodeStatusDoc, 'agentVersion' | 'hostname' | 'os' | 'arch' | 'runtimeName' | 'runtimeVersion' | 'allocatable' | 'gamePorts'>;

export type NodeStateListener = (state: NodeState, previous: NodeState | undefined) => void;

interface Entry {
  actor: Actor<typeof nodeMachine>;
  status: NodeStatusDoc;
  address: string;
  /** The last state told to listeners (or found at rehydration); changes are detected against it. */
  last?: NodeState;
  changeKey: string;
}

export interface FleetDeps {
  clock: Clock;
  logger: Logger;
  timings: NodeTimings;
  /** Drives the machines' timers; tests pass xstate's SimulatedClock. */
  timerClock?: TimerClock;
}

export const emptyResources = (): ResourceAmounts => ({ cpuMillis: 0, memoryBytes: 0, diskBytes: 0 });

export const initialStatus = (): NodeStatusDoc => ({
  connectionState: 'AWAITING_ENROLLMENT', agentVersion: '', hostname: '', os: '', arch: '', runtimeName: '', runtimeVersion: '',
  allocatable: emptyResources(), usage: emptyResources(),
});

/** What listeners are told of when it changes. */
const changeKeyOf = (adminState: string, connectionState: string, conditions: StatusCondition[], address: string, observedAddress: string | undefined) =>
  JSON.stringify([adminState, connectionState, conditions, address, observedAddress]);

/**
 * The Node actors: one standalone root actor per Node in a Map (one parent with thousands of
 * children is quadratic in xstate). The fleet turns link events into machine events, keeps the
 * Agent's last report beside each actor, and tells listeners what changed; it does no I/O (the
 * Node service persists). Heartbeats change only memory unless a state or condition changes, so
 * 1,000 Agents do not mean 200 store writes a second.
 */
export class NodeFleet {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<NodeStateListener>();
  private stopped = false;

  constructor(private readonly deps: FleetDeps) {}

  get timings(): NodeTimings {
    return this.deps.timings;
  }

  add(doc: NodeDoc): NodeState {
    const actor = createActor(nodeMachine, {
      ...(this.deps.timerClock ? { clock: this.deps.timerClock } : {}),
      input: {
        adminState: doc.adminState,
        enrolled: doc.enrolledAt !== undefined,
        timings: this.deps.timings,
        at: this.now(),
        conditions: doc.conditions,
        lastHeartbeatAt: doc.status.lastHeartbeatAt,
      },
    });
    // What the record holds already is no change: rehydrating 5,000 Nodes then writes none of them back.
    const entry: Entry = { actor, status: { ...doc.status }, address: doc.address, changeKey: changeKeyOf(doc.adminState, doc.status.connectionState, doc.conditions, doc.address, doc.status.observedAddress) };
    this.entries.set(doc._id, entry);
    actor.subscribe({
      next: (snapshot) => this.changed(doc._id, entry, snapshot),
      error: (err) => this.deps.logger.error({ err, nodeId: doc._id }, 'node actor failed'),
    });
    actor.start();
    return this.state(doc._id)!;
  }

  remove(nodeId: string): void {
    const entry = this.entries.get(nodeId);
    if (!entry) return;
    this.entries.delete(nodeId);
    entry.actor.stop();
  }

  has(nodeId: string): boolean {
    return this.entries.has(nodeId);
  }

  /** The live state of a Node, or undefined for an unknown one. */
  state(nodeId: string): NodeState | undefined {
    const entry = this.entries.get(nodeId);
    return entry ? this.stateOf(nodeId, entry, entry.actor.getSnapshot()) : undefined;
  }

  /** Only the connection state of a Node (read per server in lists: the whole state costs several matches more). */
  connectionState(nodeId: string): ConnectionState | undefined {
    const entry = this.entries.get(nodeId);
    return entry ? connectionStateOf(entry.actor.getSnapshot()) : undefined;
  }

    /** Every Node's live state (metrics, placement). */
  states(): NodeState[] {
    return [...this.entries.keys()].map((id) => this.state(id)!);
  }

  /** Runs `listener` on every change of a Node's states, conditions or facts; returns the unsubscribe. */
  subscribe(listener: NodeStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  checkAdmin(nodeId: string, event: AdminEvent): 'allowed' | 'unchanged' | 'refused' | 'unknown' {
    const entry = this.entries.get(nodeId);
    return entry ? adminChange(entry.actor.getSnapshot(), event) : 'unknown';
  }

  /** Applies an administrator's change the caller has persisted and checked with `checkAdmin`. */
  applyAdmin(nodeId: string, event: AdminEvent): void {
    this.entries.get(nodeId)?.actor.send(event);
  }

  /** Applies an address the caller has persisted (the network's routes follow it). */
  setAddress(nodeId: string, address: string): void {
    const entry = this.entries.get(nodeId);
    if (!entry || entry.address === address) return;
    entry.address = address;
    this.changed(nodeId, entry, entry.actor.getSnapshot());
  }

  enrolled(nodeId: string): void {
    this.entries.get(nodeId)?.actor.send({ type: 'ENROLLED', at: this.now() });
  }

  /** A stream has said hello: record the facts (persisted once per connection) and go online. */
  connected(nodeId: string, facts: AgentFacts, observedAddress: string): boolean {
    const entry = this.entries.get(nodeId);
    if (!entry) return false;
    const at = this.now();
    if (!entry.actor.getSnapshot().can({ type: 'CONNECTED', at })) return false;
    entry.status = { ...entry.status, ...facts, observedAddress };
    entry.changeKey = '';
    entry.actor.send({ type: 'CONNECTED', at });
    return true;
  }

  heartbeat(nodeId: string, usage: ResourceAmounts, conditions: ReportedCondition[]): void {
    const entry = this.entries.get(nodeId);
    if (!entry) return;
    const at = this.now();
    entry.status = { ...entry.status, usage, lastHeartbeatAt: at };
    entry.actor.send({ type: 'HEARTBEAT', at, conditions });
  }

  disconnected(nodeId: string): void {
    this.entries.get(nodeId)?.actor.send({ type: 'DISCONNECTED', at: this.now() });
  }

  /** Stops every actor; answers each Node's last state (usage and heartbeat time included) for the final write. */
  stop(): NodeState[] {
    this.stopped = true;
    const last = this.states();
    for (const entry of this.entries.values()) entry.actor.stop();
    this.entries.clear();
    return last;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private stateOf(nodeId: string, entry: Entry, snapshot: NodeSnapshot): NodeState {
    const connectionState = connectionStateOf(snapshot);
    return {
      nodeId,
      adminState: adminStateOf(snapshot),
      connectionState,
      acceptsPlacements: acceptsPlacementsOf(snapshot),
      conditions: conditionsOf(snapshot),
      status: { ...entry.status, connectionState, lastHeartbeatAt: snapshot.context.lastHeartbeatAt ?? entry.status.lastHeartbeatAt },
      address: entry.address,
    };
  }

  private changed(nodeId: string, entry: Entry, snapshot: NodeSnapshot): void {
    if (this.stopped || this.entries.get(nodeId) !== entry) return;
    const state = this.stateOf(nodeId, entry, snapshot);
    const key = changeKeyOf(state.adminState, state.connectionState, state.conditions, state.address, state.status.observedAddress);
    if (key === entry.changeKey) {
      entry.last ??= state;
      return;
    }
    const previous = entry.last;
    entry.changeKey = key;
    entry.last = state;
    for (const listener of this.listeners) {
      try {
        listener(state, previous);
      } catch (err) {
        this.deps.logger.error({ err, nodeId }, 'node state listener failed');
      }
    }
  }
}
