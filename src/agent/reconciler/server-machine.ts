import { assign, fromCallback, fromPromise, not, setup, type EventObject } from 'xstate';
import { crashAt, crashLoopMessage, isCrash, launchFailureAt, withOomCondition, type CrashLine } from './crash-record.js';
import { clearPortInUse, notePortInUse, portRecheckMs, type PortCheckResult } from './port-in-use.js';
import { restartsAtCrash, startAsked } from './restart-count.js';
import type { ServerMachineContext, ServerMachineInput } from './server-machine-context.js';
import { appliedFrom, needsRestart, type AppliedSpec, type ServerTarget } from './server-target.js';
import { withRuntimeRefusal, type AgentCondition } from './start-refusal.js';

/** What the Agent found for a server when it (re)started: installed software, a live process, an exit it missed. */
export interface ProbeResult {
  installed: boolean;
  running: boolean;
  applied?: AppliedSpec;
  /** The game exited while nobody watched (e.g. the Agent was down). */
  missedExit?: { code: number | null; signal: string | null };
  /** The server was asleep when the Agent stopped (its marker). */
  asleep?: { since: string; wakeNonce: number };
}

export type ServerMachineEvent =
  | { type: 'DESIRED'; desired: ServerTarget; at: number; runtimeRefusal?: AgentCondition }
  | { type: 'READY_LINE' }
  | { type: 'EXITED'; code: number | null; signal: string | null; at: number; lastLines: readonly CrashLine[]; oomKilled?: boolean }
  /** The server's files were replaced and its software installed (a restore committed here). */
  | { type: 'FILES_REPLACED' }
  /** Nobody played for the server's `sleep.afterEmptySeconds`, by its pings. */
  | { type: 'EMPTY' }
  /** A login on the sleeping port, by `player`. */
  | { type: 'WAKE'; player: string; at: number };

const crashLoopId = (serverId: string) => `${serverId}:crash-loop`;
const maxBackoffMs = 30_000;
/** A stop that failed is tried again after this long, until the game is gone. */
const stopRetryMs = 1000;

/**
 * One server on this Node, reconciled towards its desired spec. Every state is a runtime state the
 * Agent reports (see `runtimeStateOf`): installing, stopped, launching and starting, running,
 * stopping, crashed/backoff (an automatic restart is coming), crashLoop (a safety stop that holds
 * until the operator acknowledges CRASH_LOOP), removing. I/O happens in the invoked actors the
 * runner provides.
 *
 * Effects on the process are never abandoned half-way: a launch, a stop and a removal each run to
 * their end while new desired states only update the target, which is acted on once the effect
 * settled. So at most one launch or stop of a server is under way, and the machine always knows
 * whether a game runs (power actions at any rate end with one game or none).
 */
export const agentServerMachine = setup({
  types: {
    context: {} as ServerMachineContext,
    events: {} as ServerMachineEvent,
    input: {} as ServerMachineInput,
  },
  actors: {
    probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => {
      throw new Error('probe not provided');
    }),
    install: fromPromise<void, { desired: ServerTarget }>(async () => {
      throw new Error('install not provided');
    }),
    /** Whether another program holds the game port; a failed check never holds a start up. */
    checkPort: fromPromise<PortCheckResult, { desired: ServerTarget }>(async () => {
      throw new Error('checkPort not provided');
    }),
    start: fromPromise<void, { desired: ServerTarget }>(async () => {
      throw new Error('start not provided');
    }),
    /** Follows the console of a launched game and sends READY_LINE once the template's ready line appears. */
    watchReady: fromCallback<EventObject, { desired: ServerTarget }>(() => {
      throw new Error('watchReady not provided');
    }),
    stop: fromPromise<void, { desired: ServerTarget }>(async () => {
      throw new Error('stop not provided');
    }),
    remove: fromPromise<void, { desired: ServerTarget }>(async () => {
      throw new Error('remove not provided');
    }),
    /** Answers the game port while the server sleeps and sends WAKE at a login; ending it frees the port. */
    sleep: fromCallback<EventObject, { desired: ServerTarget; since: string }>(() => {
      throw new Error('sleep not provided');
    }),
  },
  guards: {
    wantsDeleted: ({ context }) => context.desired.state === 'DELETED',
    wantsRunning: ({ context }) => context.desired.state === 'RUNNING',
    startRefused: ({ context }) => context.startRefusal !== undefined || context.runtimeRefusal !== undefined,
    safetyStopped: ({ context }) => context.conditions.some((c) => c.reason === 'CRASH_LOOP'),
    restartAllowed: ({ context }) => context.desired.restartPolicy.maxRestarts > 0
      && context.crashes.length <= context.desired.restartPolicy.maxRestarts,
    restartsDisabled: ({ context }) => context.desired.restartPolicy.maxRestarts === 0,
    mustStopNow: ({ context, event }) => event.type === 'DESIRED'
      && (event.desired.state !== 'RUNNING' || (context.applied !== undefined && needsRestart(context.applied, event.desired))),
    /** What the launch started is no longer what is desired (a stop, a delete or a restart came meanwhile). */
    outdatedAfterLaunch: ({ context }) => context.desired.state !== 'RUNNING'
      || (context.applied !== undefined && needsRestart(context.applied, context.desired)),
    runEnded: ({ context }) => context.runEnded,
    acknowledgedCrashLoop: ({ context, event }) => event.type === 'DESIRED'
      && event.desired.acknowledgedConditions.includes(crashLoopId(context.desired.serverId)),
    /** A running server that may sleep now: still wanted running as it runs, and with `sleep`. */
    maySleep: ({ context }) => context.desired.state === 'RUNNING' && context.desired.sleep !== undefined
      && (context.applied === undefined || !needsRestart(context.applied, context.desired)),
    /** What keeps a sleeping server asleep: wanted running, still with `sleep`, and no start since it fell asleep. */
    staysAsleep: ({ context }) => context.desired.state === 'RUNNING' && context.desired.sleep !== undefined
      && context.desired.wakeNonce === context.asleep?.wakeNonce,
    wokenByJoin: ({ context }) => context.desired.sleep?.wakeOnJoin !== false,
  },
  actions: {
    takeDesired: assign(({ context, event }) => (event.type === 'DESIRED'
      ? { desired: event.desired, observedGeneration: event.desired.generation, ...withRuntimeRefusal(context, event.runtimeRefusal), automaticRun: context.automaticRun && !startAsked(context.desired, event.desired) }
      : {})),
    markApplied: assign(({ context }) => ({ applied: appliedFrom(context.desired), lastExitCrashed: false, runEnded: false })),
    clearApplied: assign({ applied: undefined }),
    recordExit: assign(({ context, event }) => {
      if (event.type !== 'EXITED') return {};
      const crashed = isCrash(event.code, event.signal);
      const windowStart = event.at - context.desired.restartPolicy.windowSeconds * 1000;
      const limit = event.oomKilled ? (context.applied ?? context.desired).resources.memoryBytes : undefined;
      const crash = crashed ? crashAt(event.at, event.code, event.signal, event.lastLines, limit) : undefined;
      return {
        applied: undefined,
        lastExitCrashed: crashed,
        crashes: crashed ? [...context.crashes.filter((t) => t >= windowStart), event.at] : context.crashes,
        lastCrash: crash ?? context.lastCrash,
        restarts: crash ? restartsAtCrash(context) : context.restarts,
        conditions: crash ? withOomCondition(context.conditions, context.desired.serverId, crash) : context.conditions,
      };
    }),
    markRunEnded: assign({ runEnded: true }),
    /** A launch that failed before any game ran counts as a crash: retrying it forever would hide the cause. */
    recordLaunchFailure: assign(({ context, event }) => {
      const crash = launchFailureAt(Date.now(), (event as unknown as { error?: unknown }).error);
      return { applied: undefined, lastExitCrashed: true, crashes: [...context.crashes, crash.at], lastCrash: crash, restarts: restartsAtCrash(context) };
    }),
    raiseCrashLoop: assign(({ context }) => ({
      conditions: [
        ...context.conditions.filter((c) => c.reason !== 'CRASH_LOOP'),
        {
          id: crashLoopId(context.desired.serverId),
          reason: 'CRASH_LOOP',
          message: crashLoopMessage(context.crashes.length, context.desired.restartPolicy.windowSeconds, context.lastCrash),
          since: new Date(context.crashes[context.crashes.length - 1] ?? 0).toISOString(),
        },
      ],
    })),
    clearCrashLoop: assign(({ context }) => ({
      conditions: context.conditions.filter((c) => c.reason !== 'CRASH_LOOP'),
      crashes: [],
      automaticRun: false,
    })),
    countRestart: assign(({ context }) => ({ restarts: context.restarts + 1, automaticRun: true })),
    notePortInUse: assign(({ context, event }) => notePortInUse(context, (event as unknown as { output?: PortCheckResult }).output)),
    clearPortInUse: assign(({ context }) => clearPortInUse(context)),
    fallAsleep: assign(({ context }) => ({ asleep: { since: new Date().toISOString(), wakeNonce: context.desired.wakeNonce }, lastWake: undefined })),
    /** Woken by a login (the player's name) or, leaving sleep for any other reason, by the Controller (none). */
    wake: assign(({ event }) => ({
      asleep: undefined,
      lastWake: event.type === 'WAKE' ? { at: new Date(event.at).toISOString(), player: event.player } : { at: new Date().toISOString(), player: '' },
    })),
    noteInstallError: assign(({ event }) => {
      const error = (event as unknown as { error?: unknown }).error;
      return { installError: error instanceof Error ? error.message : String(error) };
    }),
  },
  delays: {
    backoff: ({ context }) => Math.min(maxBackoffMs, context.backoffBaseMs * 2 ** Math.max(0, context.crashes.length - 1)),
  },
}).createMachine({
  id: 'agent-server',
  context: ({ input }) => ({
    desired: input.desired,
    observedGeneration: input.desired.generation,
    crashes: [],
    restarts: 0,
    automaticRun: false,
    lastExitCrashed: false,
    runEnded: false,
    conditions: [input.startRefusal, input.runtimeRefusal].filter((c) => c !== undefined),
    backoffBaseMs: input.backoffBaseMs,
    startRefusal: input.startRefusal,
    runtimeRefusal: input.runtimeRefusal,
  }),
  initial: 'probing',
  states: {
    probing: {
      // Taken while the probe runs and acted on when it ends: a delete right after a create lands here.
      on: { DESIRED: { actions: 'takeDesired' } },
      invoke: {
        src: 'probe',
        input: ({ context }) => ({ desired: context.desired }),
        onDone: [
          { guard: ({ event }) => event.output.running, target: 'running', actions: assign(({ event }) => ({ applied: event.output.applied })) },
          // Asleep when the Agent stopped: asleep again, unless what is desired changed meanwhile (then `asleep` wakes it at once).
          { guard: ({ event }) => event.output.installed && event.output.asleep !== undefined, target: 'asleep', actions: assign(({ event }) => ({ asleep: event.output.asleep })) },
          { guard: 'wantsDeleted', target: 'removing' },
          {
            guard: ({ event }) => event.output.installed && event.output.missedExit !== undefined
              && isCrash(event.output.missedExit.code, event.output.missedExit.signal),
            target: 'crashed',
            actions: assign(({ context, event }) => {
              const at = Date.now();
              const exit = event.output.missedExit!;
              return { lastExitCrashed: true, crashes: [...context.crashes, at], lastCrash: crashAt(at, exit.code, exit.signal), restarts: restartsAtCrash(context) };
            }),
          },
          { guard: ({ event }) => event.output.installed, target: 'deciding' },
          { target: 'installing' },
        ],
        onError: { target: 'installing' },
      },
    },
    installing: {
      on: { DESIRED: { actions: 'takeDesired' } },
      invoke: {
        src: 'install',
        input: ({ context }) => ({ desired: context.desired }),
        onDone: { target: 'deciding', actions: assign({ installError: undefined }) },
        onError: { target: 'installFailed', actions: 'noteInstallError' },
      },
    },
    installFailed: {
      on: {
        FILES_REPLACED: { target: 'deciding', actions: assign({ installError: undefined }) },
        DESIRED: [
          { guard: ({ event }) => event.desired.state === 'DELETED', target: 'removing', actions: 'takeDesired' },
          // A new generation is the Controller's retry (POST /servers/{id}/reinstall): install again.
          { guard: ({ context, event }) => event.desired.generation > context.desired.generation, target: 'installing', actions: 'takeDesired' },
          { actions: 'takeDesired' },
        ],
      },
    },
    deciding: {
      always: [
        { guard: 'wantsDeleted', target: 'removing' },
        { guard: 'safetyStopped', target: 'crashLoop' },
        // Not a crash and no retry: the Node cannot start the game until its Agent runs with the box, or has its Java.
        { guard: 'startRefused', target: 'stopped' },
        { guard: 'wantsRunning', target: 'checkingPort' },
        { target: 'stopped' },
      ],
    },
    stopped: {
      entry: 'clearPortInUse',
      on: { DESIRED: { target: 'deciding', actions: 'takeDesired' } },
    },
    // Nothing is started on a port another program holds: that would only crash, again and again.
    checkingPort: {
      invoke: {
        src: 'checkPort',
        input: ({ context }) => ({ desired: context.desired }),
        onDone: [
          { guard: ({ event }) => event.output.held, target: 'portBlocked', actions: 'notePortInUse' },
          { target: 'launching' },
        ],
        onError: 'launching',
      },
      // The check has no effect to finish: a new target is decided on at once.
      on: { DESIRED: { target: 'deciding', actions: 'takeDesired' } },
    },
    // Not a crash: no restart is counted, so the server never crash-loops over a port it was never started on.
    portBlocked: {
      after: { [portRecheckMs]: 'deciding' },
      on: { DESIRED: { target: 'deciding', actions: 'takeDesired' } },
    },
    launching: {
      entry: 'markApplied',
      invoke: {
        src: 'start',
        input: ({ context }) => ({ desired: context.desired }),
        onDone: [
          { guard: 'runEnded', target: 'crashed' },
          { guard: 'outdatedAfterLaunch', target: 'stopping' },
          { target: 'starting' },
        ],
        onError: { target: 'crashed', actions: 'recordLaunchFailure' },
      },
      on: {
        // Taken, and acted on once the launch settled: a launch cut short would leave a game nobody tracks.
        DESIRED: { actions: 'takeDesired' },
        EXITED: { actions: ['recordExit', 'markRunEnded'] },
      },
    },
    starting: {
      invoke: {
        src: 'watchReady',
        input: ({ context }) => ({ desired: context.desired }),
      },
      on: {
        READY_LINE: 'running',
        EXITED: { target: 'crashed', actions: 'recordExit' },
        DESIRED: [
          { guard: 'mustStopNow', target: 'stopping', actions: 'takeDesired' },
          { actions: 'takeDesired' },
        ],
      },
    },
    running: {
      entry: 'clearPortInUse',
      // A game adopted at the probe may be wanted stopped, deleted or restarted by a change taken meanwhile.
      always: { guard: 'outdatedAfterLaunch', target: 'stopping' },
      on: {
        EXITED: { target: 'crashed', actions: 'recordExit' },
        EMPTY: { guard: 'maySleep', target: 'fallingAsleep' },
        DESIRED: [
          { guard: 'mustStopNow', target: 'stopping', actions: 'takeDesired' },
          { actions: 'takeDesired' },
        ],
      },
    },
    stopping: stopThen({ target: 'deciding', actions: ['clearApplied'] }),
    // Stopping the game for want of players: a stop like any other, that ends asleep while still wanted.
    fallingAsleep: stopThen({ target: 'asleep', actions: ['clearApplied', 'fallAsleep'] }),
    asleep: {
      always: [
        // A stop or a delete is no wake: the server just leaves its sleep (and its port) behind.
        { guard: ({ context }) => context.desired.state !== 'RUNNING', target: 'deciding', actions: assign({ asleep: undefined }) },
        // A start (a new wake nonce), or `sleep` turned off, wakes it.
        { guard: not('staysAsleep'), target: 'deciding', actions: 'wake' },
      ],
      invoke: {
        src: 'sleep',
        input: ({ context }) => ({ desired: context.desired, since: context.asleep?.since ?? '' }),
      },
      on: {
        DESIRED: { actions: 'takeDesired' },
        WAKE: { guard: 'wokenByJoin', target: 'deciding', actions: 'wake' },
      },
    },
    stopFailed: {
      after: { [stopRetryMs]: 'stopping' },
      on: { DESIRED: { actions: 'takeDesired' } },
    },
    crashed: {
      always: [
        { guard: 'wantsDeleted', target: 'removing' },
        { guard: ({ context }) => context.desired.state !== 'RUNNING', target: 'stopped' },
        { guard: 'restartsDisabled', target: 'stopped' },
        { guard: 'restartAllowed', target: 'backoff' },
        { target: 'crashLoop', actions: 'raiseCrashLoop' },
      ],
    },
    backoff: {
      after: { backoff: { target: 'checkingPort', actions: 'countRestart' } },
      on: {
        DESIRED: [
          { guard: ({ event }) => event.desired.state !== 'RUNNING', target: 'deciding', actions: 'takeDesired' },
          { actions: 'takeDesired' },
        ],
      },
    },
    crashLoop: {
      entry: 'clearPortInUse',
      on: {
        DESIRED: [
          { guard: 'acknowledgedCrashLoop', target: 'deciding', actions: ['takeDesired', 'clearCrashLoop'] },
          { guard: ({ event }) => event.desired.state === 'DELETED', target: 'removing', actions: 'takeDesired' },
          { actions: 'takeDesired' },
        ],
      },
    },
    removing: {
      invoke: {
        src: 'remove',
        input: ({ context }) => ({ desired: context.desired }),
        onDone: 'removed',
        onError: 'removed',
      },
    },
    removed: { type: 'final' },
  },
});

/**
 * A stop of the game, then `done`. Desired changes are taken and acted on once it is over; the
 * process's exit is expected here (it ends the stop, not a crash); a failed stop is tried again,
 * since deciding on a game not known to be gone could start a second one beside it.
 */
function stopThen(done: { target: 'deciding' | 'asleep'; actions: ('clearApplied' | 'fallAsleep')[] }) {
  return {
    on: { DESIRED: { actions: 'takeDesired' as const }, EXITED: {} },
    invoke: {
      src: 'stop' as const,
      input: ({ context }: { context: ServerMachineContext }) => ({ desired: context.desired }),
      onDone: done,
      onError: 'stopFailed' as const,
    },
  };
}
