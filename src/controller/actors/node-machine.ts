import { and, assign, not, setup, stateIn, type SnapshotFrom } from 'xstate';
import type { StatusCondition } from '../domain/status.js';
import type { AdminState, ConnectionState } from '../schemas/nodes.js';
import {
  controllerConditions, isoPlus, isPressure, mergeAgentConditions, withCondition, withoutCondition, type ReportedCondition,
} from './node-conditions.js';


/** The contract's timings; tests shorten them. */
export interface NodeTimings {
  /** How often Agents send a heartbeat (told to them in Welcome). */
  heartbeatIntervalMs: number;
  /** No heartbeat for this long: DEGRADED. */
  degradedAfterMs: number;
  /** No heartbeat for this long (counted from the last one): UNREACHABLE. */
  unreachableAfterMs: number;
}

export const defaultNodeTimings: NodeTimings = { heartbeatIntervalMs: 5_000, degradedAfterMs: 15_000, unreachableAfterMs: 45_000 };

/** Every event carries the Controller's time (`at`), so the machine itself never reads a clock. */
export type NodeEvent =
  | { type: 'ENROLLED'; at: string }
  | { type: 'CONNECTED'; at: string }
  | { type: 'HEARTBEAT'; at: string; conditions: ReportedCondition[] }
  /** From the fleet's liveness sweep: no sign of life since `lastSeenAt`, at least `degradedAfterMs` ago. */
  | { type: 'STALE'; lastSeenAt: string }
  | { type: 'DISCONNECTED'; at: string }
  | { type: 'ENABLE' }
  | { type: 'DISABLE' }
  | { type: 'REVOKE'; at: string };

export interface NodeInput {
  adminState: AdminState;
  /** True once an Agent has enrolled: a restarted Controller then starts the Node UNREACHABLE until it reconnects. */
  enrolled: boolean;
  timings: NodeTimings;
  /** Time of rehydration. */
  at: string;
  /** Conditions persisted before a restart, so their `since` is kept. */
  conditions?: StatusCondition[];
  lastHeartbeatAt?: string;
}

export interface NodeContext {
  timings: NodeTimings;
  controllerConditions: StatusCondition[];
  agentConditions: StatusCondition[];
  /** Last heartbeat, as shown in the API. */
  lastHeartbeatAt?: string;
  /** Last sign of life (connect or heartbeat): the timers count from it. */
  lastSeenAt: string;
  /** Rehydration input, read once by the boot states. */
  boot: { adminState: AdminState; enrolled: boolean };
}

const unreachableCondition = (since: string): StatusCondition => ({
  ...controllerConditions.unreachable, source: 'CONTROLLER', since,
  message: 'The Agent is not connected: its stream closed or it stopped sending heartbeats.',
});

const heartbeatMissedCondition = (since: string, afterMs: number): StatusCondition => ({
  ...controllerConditions.heartbeatMissed, source: 'CONTROLLER', since,
  message: `No heartbeat from the Agent for ${Math.round(afterMs / 1000)} s.`,
});

/**
 * One Node: two parallel regions. `admin` is what administrators want (REVOKED is final);
 * `connection` is what the Controller observes, driven by the link's events. Missed heartbeats
 * arrive as STALE from the fleet's liveness sweep (one timer for every Node, so a heartbeat of a
 * HEALTHY Node need not reach the machine at all); from stale, the timer to UNREACHABLE lives
 * here (its delay reads the timings from context, so tests shorten them).
 */
export const nodeMachine = setup({
  types: {
    context: {} as NodeContext,
    events: {} as NodeEvent,
    input: {} as NodeInput,
  },
  delays: {
    lostAfterStale: ({ context }) => Math.max(0, context.timings.unreachableAfterMs - context.timings.degradedAfterMs),
  },
  guards: {
    startsDisabled: ({ context }) => context.boot.adminState === 'DISABLED',
    startsRevoked: ({ context }) => context.boot.adminState === 'REVOKED',
    wasEnrolled: ({ context }) => context.boot.enrolled,
    notRevoked: not(stateIn({ admin: 'revoked' })),
    reportsPressure: ({ event }) => event.type === 'HEARTBEAT' && event.conditions.some((c) => isPressure(c.reason)),
  },
  actions: {
    /** The Agent's hello is its first report: the Node's last heartbeat is then, not its previous one. */
    markConnected: assign(({ context, event }) => {
      const at = 'at' in event ? event.at : context.lastSeenAt;
      return {
        lastSeenAt: at,
        lastHeartbeatAt: at,
        agentConditions: [],
        controllerConditions: withoutCondition(withoutCondition(context.controllerConditions, controllerConditions.unreachable.id), controllerConditions.heartbeatMissed.id),
      };
    }),
    recordHeartbeat: assign(({ context, event }) => {
      if (event.type !== 'HEARTBEAT') return {};
      return {
        lastSeenAt: event.at,
        lastHeartbeatAt: event.at,
        agentConditions: mergeAgentConditions(context.agentConditions, event.conditions, event.at),
        controllerConditions: withoutCondition(context.controllerConditions, controllerConditions.heartbeatMissed.id),
      };
    }),
    markStale: assign(({ context, event }) => {
      const lastSeenAt = event.type === 'STALE' ? event.lastSeenAt : context.lastSeenAt;
      return {
        lastSeenAt,
        controllerConditions: withCondition(
          context.controllerConditions,
          heartbeatMissedCondition(isoPlus(lastSeenAt, context.timings.degradedAfterMs), context.timings.degradedAfterMs),
        ),
      };
    }),
    /** Closed stream or revocation: the time is the event's. */
    markUnreachableNow: assign(({ context, event }) => ({
      agentConditions: [],
      controllerConditions: withCondition(
        withoutCondition(context.controllerConditions, controllerConditions.heartbeatMissed.id),
        unreachableCondition('at' in event ? event.at : context.lastSeenAt),
      ),
    })),
    /** Lost by the timer: it became unreachable exactly `unreachableAfterMs` after the last sign of life. */
    markUnreachableByTimer: assign(({ context }) => ({
      agentConditions: [],
      controllerConditions: withCondition(
        withoutCondition(context.controllerConditions, controllerConditions.heartbeatMissed.id),
        unreachableCondition(isoPlus(context.lastSeenAt, context.timings.unreachableAfterMs)),
      ),
    })),
  },
}).createMachine({
  id: 'node',
  type: 'parallel',
  context: ({ input }) => {
    const persisted = input.conditions ?? [];
    return {
      timings: input.timings,
      controllerConditions: persisted.filter((c) => c.source === 'CONTROLLER' && c.id === controllerConditions.unreachable.id),
      agentConditions: [],
      lastHeartbeatAt: input.lastHeartbeatAt,
      lastSeenAt: input.lastHeartbeatAt ?? input.at,
      boot: { adminState: input.adminState, enrolled: input.enrolled },
    };
  },
  states: {
    admin: {
      initial: 'boot',
      states: {
        boot: {
          always: [
            { guard: 'startsRevoked', target: 'revoked' },
            { guard: 'startsDisabled', target: 'disabled' },
            { target: 'enabled' },
          ],
        },
        enabled: { on: { DISABLE: 'disabled', REVOKE: 'revoked' } },
        disabled: { on: { ENABLE: 'enabled', REVOKE: 'revoked' } },
        // Final: nothing leaves it, so every admin event is refused (invalid_transition).
        revoked: { type: 'final' },
      },
    },
    connection: {
      initial: 'boot',
      states: {
        boot: {
          always: [
            { guard: 'wasEnrolled', target: 'unreachable', actions: 'markUnreachableNow' },
            { target: 'awaitingEnrollment' },
          ],
        },
        awaitingEnrollment: {
          on: {
            ENROLLED: { guard: 'notRevoked', target: 'unreachable', actions: 'markUnreachableNow' },
            CONNECTED: { guard: 'notRevoked', target: 'online', actions: 'markConnected' },
          },
        },
        unreachable: {
          id: 'unreachable',
          on: {
            CONNECTED: { guard: 'notRevoked', target: 'online', actions: 'markConnected' },
            // A stream that froze (long pause, partition without a reset) and then speaks again is back.
            HEARTBEAT: [
              { guard: and(['notRevoked', 'reportsPressure']), target: 'online.pressured', actions: ['markConnected', 'recordHeartbeat'] },
              { guard: 'notRevoked', target: 'online.healthy', actions: ['markConnected', 'recordHeartbeat'] },
            ],
          },
        },
        online: {
          initial: 'healthy',
          on: {
            // A new stream replacing the old one starts fresh.
            CONNECTED: { target: '.healthy', reenter: true, actions: 'markConnected' },
            HEARTBEAT: [
              { guard: 'reportsPressure', target: '.pressured', actions: 'recordHeartbeat' },
              { target: '.healthy', actions: 'recordHeartbeat' },
            ],
            DISCONNECTED: { target: '#unreachable', actions: 'markUnreachableNow' },
            // Revocation closes the stream at once.
            REVOKE: { target: '#unreachable', actions: 'markUnreachableNow' },
          },
          states: {
            healthy: { on: { STALE: { target: 'stale', actions: 'markStale' } } },
            /** Heartbeats arrive but the Agent reports pressure (DISK_PRESSURE, ...). */
            pressured: { on: { STALE: { target: 'stale', actions: 'markStale' } } },
            /** Heartbeats stopped; the stream may be frozen rather than closed. */
            stale: { after: { lostAfterStale: { target: '#unreachable', actions: 'markUnreachableByTimer' } } },
          },
        },
      },
    },
  },
});

export type NodeSnapshot = SnapshotFrom<typeof nodeMachine>;

/** The states and conditions a Node's machine starts in from `input`. */
export interface RehydratedNode {
  adminState: AdminState;
  connectionState: ConnectionState;
  conditions: StatusCondition[];
}

/**
 * What `nodeMachine` holds once started from `input`, computed without making the actor (making
 * and starting one costs ≈ 0.1 ms, 0.5 s for 5,000 Nodes at every start): the fleet answers from
 * this until the Node's first event. The boot states' rules, the same as the machine's (a unit
 * test compares the two): admin as persisted; an enrolled Node UNREACHABLE since its last
 * heartbeat (or rehydration), any other awaiting enrollment; of the persisted conditions only
 * the Controller's unreachable one is kept.
 */
export function rehydratedNode(input: NodeInput): RehydratedNode {
  const persisted = (input.conditions ?? []).filter((c) => c.source === 'CONTROLLER' && c.id === controllerConditions.unreachable.id);
  if (!input.enrolled) return { adminState: input.adminState, connectionState: 'AWAITING_ENROLLMENT', conditions: persisted };
  const conditions = withCondition(withoutCondition(persisted, controllerConditions.heartbeatMissed.id), unreachableCondition(input.lastHeartbeatAt ?? input.at));
  return { adminState: input.adminState, connectionState: 'UNREACHABLE', conditions };
}

/** Online and not yet stale: the states the liveness sweep watches for missed heartbeats. */
export const isLive = (s: NodeSnapshot) => s.matches({ connection: { online: 'healthy' } }) || s.matches({ connection: { online: 'pressured' } });

/** HEALTHY with no Agent condition: a heartbeat without conditions would change nothing in the machine. */
export const isQuietlyHealthy = (s: NodeSnapshot) => s.context.agentConditions.length === 0 && s.matches({ connection: { online: 'healthy' } });

export function adminStateOf(s: NodeSnapshot): AdminState {
  if (s.matches({ admin: 'revoked' })) return 'REVOKED';
  if (s.matches({ admin: 'disabled' })) return 'DISABLED';
  return 'ENABLED';
}

export function connectionStateOf(s: NodeSnapshot): ConnectionState {
  if (s.matches({ connection: { online: 'healthy' } })) return 'HEALTHY';
  if (s.matches({ connection: 'online' })) return 'DEGRADED';
  if (s.matches({ connection: 'awaitingEnrollment' })) return 'AWAITING_ENROLLMENT';
  return 'UNREACHABLE';
}

/** The spec: true only when adminState is ENABLED and connectionState is HEALTHY. */
export const acceptsPlacementsOf = (s: NodeSnapshot) => adminStateOf(s) === 'ENABLED' && connectionStateOf(s) === 'HEALTHY';

export type AdminEvent = Extract<NodeEvent, { type: 'ENABLE' | 'DISABLE' | 'REVOKE' }>;
const adminTargets: Record<AdminEvent['type'], AdminState> = { ENABLE: 'ENABLED', DISABLE: 'DISABLED', REVOKE: 'REVOKED' };

/**
 * How an administrator's request meets the machine: asking for the state it is already in is
 * `unchanged` (so the API is idempotent), except on REVOKED, which is final. A guard-refused
 * event would be dropped silently, so callers ask first and answer `invalid_transition`.
 */
export function adminChange(s: NodeSnapshot, event: AdminEvent): 'allowed' | 'unchanged' | 'refused' {
  const current = adminStateOf(s);
  if (current === 'REVOKED') return 'refused';
  if (current === adminTargets[event.type]) return 'unchanged';
  return s.can(event) ? 'allowed' : 'refused';
}

export const conditionsOf = (s: NodeSnapshot): StatusCondition[] => [...s.context.controllerConditions, ...s.context.agentConditions];
