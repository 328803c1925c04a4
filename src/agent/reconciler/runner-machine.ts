import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { agentServerMachine, type ProbeResult } from './server-machine.js';
import type { PortCheckResult } from './port-in-use.js';
import type { ServerTarget } from './server-target.js';

/** The effects of one server's reconciler machine (its invoked actors), each bound to its runner. */
export interface RunnerEffects {
  probe(desired: ServerTarget): Promise<ProbeResult>;
  install(desired: ServerTarget): Promise<void>;
  checkPort(desired: ServerTarget): Promise<PortCheckResult>;
  start(desired: ServerTarget): Promise<void>;
  /** Calls `ready` once the ready line appears; answers how to stop watching. */
  watchReady(ready: () => void): () => void;
  stop(): Promise<void>;
  remove(): Promise<void>;
  /** Answers the sleeping port until the returned function closes it. */
  sleep(desired: ServerTarget, since: string, wake: (player: string) => void): () => void;
}

/** Each server's actor system (one per root actor) to its runner's effects, which the shared machine's actors run. */
const runners = new WeakMap<object, RunnerEffects>();

/** Binds a server actor (before it starts) to its runner's effects. */
export const bindRunner = (system: object, effects: RunnerEffects): void => {
  runners.set(system, effects);
};
const runnerOf = (system: object): RunnerEffects => {
  const effects = runners.get(system);
  if (!effects) throw new Error('no server runner for this actor');
  return effects;
};

/**
 * The reconciler machine with the runners' effects, made once: `provide` copies the whole machine
 * (every state node, transition and closure), about 70 KB of heap per server when each runner made its own.
 */
export const runnerMachine = agentServerMachine.provide({
  actors: {
    probe: fromPromise<ProbeResult, { desired: ServerTarget }>(({ input, system }) => runnerOf(system).probe(input.desired)),
    install: fromPromise<void, { desired: ServerTarget }>(({ input, system }) => runnerOf(system).install(input.desired)),
    checkPort: fromPromise<PortCheckResult, { desired: ServerTarget }>(({ input, system }) => runnerOf(system).checkPort(input.desired)),
    start: fromPromise<void, { desired: ServerTarget }>(({ input, system }) => runnerOf(system).start(input.desired)),
    watchReady: fromCallback<EventObject, { desired: ServerTarget }>(({ system, sendBack }) => runnerOf(system).watchReady(() => sendBack({ type: 'READY_LINE' }))),
    stop: fromPromise<void, { desired: ServerTarget }>(({ system }) => runnerOf(system).stop()),
    remove: fromPromise<void, { desired: ServerTarget }>(({ system }) => runnerOf(system).remove()),
    sleep: fromCallback<EventObject, { desired: ServerTarget; since: string }>(({ input, system, sendBack }) => runnerOf(system).sleep(input.desired, input.since, (player) => sendBack({ type: 'WAKE', player, at: Date.now() }))),
  },
});
