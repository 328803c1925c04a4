import { expect } from 'chai';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject } from 'xstate';
import type { ServerTarget } from '../../src/agent/reconciler/server-target.js';
import { agentServerMachine, type ProbeResult } from '../../src/agent/reconciler/server-machine.js';
import type { PortCheckResult } from '../../src/agent/reconciler/port-in-use.js';
import { seeded } from '../support/seeded-random.js';

type Action = 'start' | 'stop' | 'restart';

const target = (over: Partial<ServerTarget>): ServerTarget => ({
  serverId: 's1', generation: 1, state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' },
  resources: { cpuMillis: 1000, memoryBytes: 1 << 30 }, gamePort: 41565, inNetwork: false,
  restartPolicy: { maxRestarts: 3, windowSeconds: 300 }, acknowledgedConditions: [], restartNonce: 0, wakeNonce: 0, ...over,
});

/**
 * One storm against the machine with effects that behave like the real runner's, each taking a
 * random few milliseconds: a launch starts a game unless one runs (the runtime adopts it then), a
 * stop ends the game and reports its clean exit before it resolves (as the runtime does), the
 * ready line comes a little after a launch. No game ever crashes here, so no crash may be counted.
 */
async function storm(seed: number): Promise<{ actions: Action[]; problems: string[] }> {
  const random = seeded(seed);
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
  const problems: string[] = [];
  const world: { game: number | null; games: number } = { game: null, games: 0 };
  const machine = agentServerMachine.provide({
    actors: {
      probe: fromPromise<ProbeResult, { desired: ServerTarget }>(async () => ({ installed: true, running: false })),
      checkPort: fromPromise<PortCheckResult, { desired: ServerTarget }>(async () => {
        await pause();
        return { held: false };
      }),
      start: fromPromise<void, { desired: ServerTarget }>(async () => {
        await pause();
        world.game ??= ++world.games;
      }),
      watchReady: fromCallback<EventObject, { desired: ServerTarget }>(({ sendBack }) => {
        const watched = world.game;
        const timer = setTimeout(() => {
          if (watched !== null && world.game === watched) sendBack({ type: 'READY_LINE' });
        }, Math.floor(random() * 3));
        return () => clearTimeout(timer);
      }),
      stop: fromPromise<void, { desired: ServerTarget }>(async () => {
        if (world.game === null) return;
        await pause();
        world.game = null;
        actor.send({ type: 'EXITED', code: 0, signal: null, at: Date.now(), lastLines: [] });
      }),
    },
  });
  let generation = 1;
  let nonce = 0;
  const actor = createActor(machine, { input: { desired: target({ generation }), backoffBaseMs: 1 } });
  actor.subscribe((s) => {
    if (s.context.crashes.length > 0 && !problems.some((p) => p.startsWith('crash'))) problems.push(`crash counted in ${String(s.value)}`);
  });
  actor.start();
  await waitFor(actor, (s) => s.value === 'stopped');
  const kinds: Action[] = ['start', 'stop', 'restart'];
  const actions = Array.from({ length: 20 }, () => kinds[Math.floor(random() * kinds.length)]);
  let state: ServerTarget['state'] = 'STOPPED';
  for (const action of actions) {
    generation += 1;
    if (action === 'restart') nonce += 1;
    state = action === 'stop' ? 'STOPPED' : 'RUNNING';
    actor.send({ type: 'DESIRED', desired: target({ generation, state, restartNonce: nonce }), at: Date.now() });
    if (random() < 0.7) await pause();
  }
  const settled = await waitFor(actor, (s) => s.value === (state === 'RUNNING' ? 'running' : 'stopped'), { timeout: 2000 });
  if (settled.context.crashes.length > 0) problems.push(`crashes: ${settled.context.crashes.length}`);
  if (state === 'RUNNING' && world.game === null) problems.push('RUNNING with no game');
  if (state === 'STOPPED' && world.game !== null) problems.push('STOPPED with a game');
  if (state === 'RUNNING' && settled.context.applied?.restartNonce !== nonce) problems.push(`runs restart ${settled.context.applied?.restartNonce}, not ${nonce}`);
  actor.stop();
  return { actions, problems };
}

describe('agent server machine: power storms against effects with random timing', () => {
  it('150 seeded storms of 20 actions end in the last one asked, with one game or none and no crash counted', async function () {
    this.timeout(60_000);
    const failures: string[] = [];
    for (let seed = 1; seed <= 150 && failures.length < 3; seed++) {
      const { actions, problems } = await storm(seed);
      if (problems.length > 0) failures.push(`seed ${seed} (${actions.join(' ')}): ${problems.join('; ')}`);
    }
    expect(failures).to.deep.equal([]);
  });
});
