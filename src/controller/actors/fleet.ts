import { createActor, type Actor, type ActorOptions, type AnyActorLogic } from 'xstate';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import type { ResourceAmounts, StatusCondition } from '../domain/status.js';
import type { NodeDoc, NodeStatusDoc } from '../store/records.js';
import {
  acceptsPlacementsOf, adminChange, adminStateOf, conditionsOf, connectionStateOf, isLive, isQuietlyHealthy, nodeMachine, rehydratedNode,
  type AdminEvent, type NodeEvent, type NodeInput, type NodeSnapshot, type NodeTimings, type RehydratedNode,
} from './node-machine.js';
import type { ReportedCondition } from './node-conditions.js';
import type { AdminState, ConnectionState } from '../schemas/nodes.js';

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
export type AgentFacts = Pick<NodeStatusDoc, 'agentVersion' | 'hostname' | 'os' | 'arch' | 'runtimeName' | 'runtimeVersion' | 'allocatable' | 'gamePorts' | 'isolation' | 'runtimes'>;

export type NodeStateListener = (state: NodeState, previous: NodeState | undefined) => void;

interface Entry {
  nodeId: string;
  /** Made on the Node's first event; until then the Node is in the state its record rehydrates to, `rehydrated`. */
  actor?: Actor<typeof nodeMachine>;
  /** What the actor will be made from: the record as it was read at rehydration. */
  input: NodeInput;
  rehydrated: RehydratedNode;
  status: NodeStatusDoc;
  address: string;
  /** The last state told to listeners (or found at rehydration); changes are detected against it. */
  last?: NodeState;
  changeKey: string;
  /** The sweep tick of the last sign of life (connect or heartbeat). */
  seenTick: number;
  /** HEALTHY without Agent conditions: a heartbeat without conditions skips the machine. */
  quiet: boolean;
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
/** Sweep ticks per `degradedAfterMs`: a missed heartbeat is noticed at most an eighth late (and at most 1 s). */
const ticksPerStaleWindow = 8;

/**
 * The Node actors: one standalone root actor per Node in a Map (one parent with thousands of
 * children is quadratic in xstate). The fleet turns link events into machine events, keeps the
 * Agent's last report beside each actor, and tells listeners what changed; it does no I/O (the
 * Node service persists). Heartbeats change only memory unless a state or condition changes, so
 * 1,000 Agents do not mean 200 store writes a second.
 *
 * Liveness is the fleet's: a heartbeat marks the Node seen, and one sweep timer for all Nodes
 * tells a live Node's machine STALE once no sign of life came for more than `degradedAfterMs`
 * (counted in ticks, so a Controller too busy to run its timers never declares Nodes stale early).
 * A heartbeat of a HEALTHY Node that reports no condition therefore costs no machine event and
 * no timer: most of a fleet's heartbeats.
 */
export class NodeFleet {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<NodeStateListener>();
  private stopped = false;
  /** Live Nodes (online, not stale): the ones the sweep checks. */
  private readonly live = new Set<Entry>();
  private tick = 0;
  private sweepTimer: unknown;
  private readonly tickMs: number;
  private readonly timers: TimerClock;

  constructor(private readonly deps: FleetDeps) {
    this.tickMs = Math.max(1, Math.min(1000, Math.floor(deps.timings.degradedAfterMs / ticksPerStaleWindow)));
    this.timers = deps.timerClock ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) };
  }

  get timings(): NodeTimings {
    return this.deps.timings;
  }

  /**
   * Rehydrates a Node without making its actor (a start with 5,000 Nodes makes none): it answers
   * from the state the machine starts in, and the actor is made from the same input on the
   * Node's first event. A record that differs from that state is told to listeners, as the
   * started machine would.
   */
  add(doc: NodeDoc): NodeState {
    const input: NodeInput = {
      adminState: doc.adminState,
      enrolled: doc.enrolledAt !== undefined,
      timings: this.deps.timings,
      at: this.now(),
      conditions: doc.conditions,
      lastHeartbeatAt: doc.status.lastHeartbeatAt,
    };
    // What the record holds already is no change: rehydrating 5,000 Nodes then writes none of them back.
    const entry: Entry = {
      nodeId: doc._id, input, rehydrated: rehydratedNode(input), status: { ...doc.status }, address: doc.address,
      changeKey: changeKeyOf(doc.adminState, doc.status.connectionState, doc.conditions, doc.address, doc.status.observedAddress),
      seenTick: 0, quiet: false,
    };
    this.entries.set(doc._id, entry);
    this.publish(entry, this.currentState(entry));
    return this.currentState(entry);
  }

  remove(nodeId: string): void {
    const entry = this.entries.get(nodeId);
    if (!entry) return;
    this.entries.delete(nodeId);
    this.live.delete(entry);
    entry.actor?.stop();
  }

  has(nodeId: string): boolean {
    return this.entries.has(nodeId);
  }

  /** The live state of a Node, or undefined for an unknown one. */
  state(nodeId: string): NodeState | undefined {
    const entry = this.entries.get(nodeId);
    return entry ? this.currentState(entry) : undefined;
  }

  /** Only the connection state of a Node (read per server in lists: the whole state costs several matches more). */
  connectionState(nodeId: string): ConnectionState | undefined {
    const entry = this.entries.get(nodeId);
    if (!entry) return undefined;
    return entry.actor ? connectionStateOf(entry.actor.getSnapshot()) : entry.rehydrated.connectionState;
  }

    /** Every Node's live state (placement, the Node list). */
  states(): NodeState[] {
    return [...this.entries.keys()].map((id) => this.state(id)!);
  }

  /**
   * How many Nodes are in each admin and connection state, for a metrics scrape: only those two of
   * each Node, as `states()` built every Node's whole state (its status copied, its conditions
   * read) and at 5,000 Nodes held the event loop 85 ms per gauge of every scrape.
   */
  countByState(): { adminState: AdminState; connectionState: ConnectionState; count: number }[] {
    const counts = new Map<string, { adminState: AdminState; connectionState: ConnectionState; count: number }>();
    for (const entry of this.entries.values()) {
      const snapshot = entry.actor?.getSnapshot();
      const adminState = snapshot ? adminStateOf(snapshot) : entry.rehydrated.adminState;
      const connectionState = snapshot ? connectionStateOf(snapshot) : entry.rehydrated.connectionState;
      const key = `${adminState}/${connectionState}`;
      const count = counts.get(key);
      if (count) count.count += 1;
      else counts.set(key, { adminState, connectionState, count: 1 });
    }
    return [...counts.values()];
  }

  /** The oldest last heartbeat (ms since the epoch) among the Nodes `connected` answers true for; undefined when none has one. */
  oldestHeartbeatMs(connected: (nodeId: string) => boolean): number | undefined {
    let oldest: number | undefined;
    for (const entry of this.entries.values()) {
      const at = entry.status.lastHeartbeatAt;
      if (!at || !connected(entry.nodeId)) continue;
      const ms = Date.parse(at);
      if (oldest === undefined || ms < oldest) oldest = ms;
    }
    return oldest;
  }

  /** Runs `listener` on every change of a Node's states, conditions or facts; returns the unsubscribe. */
  subscribe(listener: NodeStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  checkAdmin(nodeId: string, event: AdminEvent): 'allowed' | 'unchanged' | 'refused' | 'unknown' {
    const entry = this.entries.get(nodeId);
    return entry ? adminChange(this.actorOf(entry).getSnapshot(), event) : 'unknown';
  }

  /** Applies an administrator's change the caller has persisted and checked with `checkAdmin`. */
  applyAdmin(nodeId: string, event: AdminEvent): void {
    this.send(nodeId, event);
  }

  /** Applies an address the caller has persisted (the network's routes follow it). */
  setAddress(nodeId: string, address: string): void {
    const entry = this.entries.get(nodeId);
    if (!entry || entry.address === address) return;
    entry.address = address;
    this.publish(entry, this.currentState(entry));
  }

  enrolled(nodeId: string): void {
    this.send(nodeId, { type: 'ENROLLED', at: this.now() });
  }

  /**
   * A stream has said hello: record the facts (persisted once per connection) and go online.
   * `not_loaded`: no actor for the Node here (between a lease lost and the record read again);
   * `revoked`: its actor refuses connections.
   */
  connected(nodeId: string, facts: AgentFacts, observedAddress: string): 'connected' | 'not_loaded' | 'revoked' {
    const entry = this.entries.get(nodeId);
    if (!entry) return 'not_loaded';
    const at = this.now();
    const actor = this.actorOf(entry);
    if (!actor.getSnapshot().can({ type: 'CONNECTED', at })) return 'revoked';
    entry.status = { ...entry.status, ...facts, observedAddress, lastHeartbeatAt: at };
    entry.seenTick = this.tick;
    entry.changeKey = '';
    actor.send({ type: 'CONNECTED', at });
    return 'connected';
  }

  heartbeat(nodeId: string, usage: ResourceAmounts, conditions: ReportedCondition[]): void {
    const entry = this.entries.get(nodeId);
    if (!entry) return;
    const at = this.now();
    entry.status.usage = usage;
    entry.status.lastHeartbeatAt = at;
    entry.seenTick = this.tick;
    if (entry.quiet && conditions.length === 0) return;
    this.actorOf(entry).send({ type: 'HEARTBEAT', at, conditions });
  }

  disconnected(nodeId: string): void {
    this.send(nodeId, { type: 'DISCONNECTED', at: this.now() });
  }

  /** Stops every actor; answers each Node's last state (usage and heartbeat time included) for the final write. */
  stop(): NodeState[] {
    this.stopped = true;
    if (this.sweepTimer !== undefined) this.timers.clearTimeout(this.sweepTimer);
    this.live.clear();
    const last = this.states();
    for (const entry of this.entries.values()) entry.actor?.stop();
    this.entries.clear();
    return last;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private send(nodeId: string, event: NodeEvent): void {
    const entry = this.entries.get(nodeId);
    if (entry) this.actorOf(entry).send(event);
  }

  /** The Node's actor, made and started from its rehydration input the first time it is needed. */
  private actorOf(entry: Entry): Actor<typeof nodeMachine> {
    if (entry.actor) return entry.actor;
    const actor = createActor(nodeMachine, { ...(this.deps.timerClock ? { clock: this.deps.timerClock } : {}), input: entry.input });
    entry.actor = actor;
    actor.subscribe({
      next: (snapshot) => this.changed(entry.nodeId, entry, snapshot),
      error: (err) => this.deps.logger.error({ err, nodeId: entry.nodeId }, 'node actor failed'),
    });
    actor.start();
    return actor;
  }

  private currentState(entry: Entry): NodeState {
    if (entry.actor) return this.stateOf(entry.nodeId, entry, entry.actor.getSnapshot());
    const { adminState, connectionState, conditions } = entry.rehydrated;
    return {
      nodeId: entry.nodeId, adminState, connectionState, acceptsPlacements: false, conditions: [...conditions],
      status: { ...entry.status, connectionState }, address: entry.address,
    };
  }

  private stateOf(nodeId: string, entry: Entry, snapshot: NodeSnapshot): NodeState {
    const connectionState = connectionStateOf(snapshot);
    return {
      nodeId,
      adminState: adminStateOf(snapshot),
      connectionState,
      acceptsPlacements: acceptsPlacementsOf(snapshot),
      conditions: conditionsOf(snapshot),
      status: { ...entry.status, connectionState },
      address: entry.address,
    };
  }

  /** Tells each live Node not seen for more than `degradedAfterMs` (in whole ticks) that it is stale. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.tick++;
    const staleTicks = Math.ceil(this.deps.timings.degradedAfterMs / this.tickMs);
    for (const entry of this.live) {
      // Only a Node whose actor runs is ever live.
      if (this.tick - entry.seenTick > staleTicks) entry.actor?.send({ type: 'STALE', lastSeenAt: entry.status.lastHeartbeatAt ?? this.now() });
    }
    this.armSweep();
  }

  private armSweep(): void {
    if (this.stopped || this.sweepTimer !== undefined || this.live.size === 0) return;
    this.sweepTimer = this.timers.setTimeout(() => this.sweep(), this.tickMs);
  }

  private watch(entry: Entry, snapshot: NodeSnapshot): void {
    entry.quiet = isQuietlyHealthy(snapshot);
    if (!isLive(snapshot)) {
      this.live.delete(entry);
      return;
    }
    if (this.live.has(entry)) return;
    entry.seenTick = this.tick;
    this.live.add(entry);
    this.armSweep();
  }

  private changed(nodeId: string, entry: Entry, snapshot: NodeSnapshot): void {
    if (this.stopped || this.entries.get(nodeId) !== entry) return;
    this.watch(entry, snapshot);
    this.publish(entry, this.stateOf(nodeId, entry, snapshot));
  }

  /** Tells listeners of `state` when it differs from the last one told (or found in the record). */
  private publish(entry: Entry, state: NodeState): void {
    if (this.stopped) return;
    const { nodeId } = entry;
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
