import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type Fleet } from '../support/fleet.js';
import { greetingOn, processesIn } from '../support/game-processes.js';
import { seeded } from '../support/seeded-random.js';

type Action = 'start' | 'stop' | 'restart';

describe('power actions at any rate converge to exactly one game or none (real Agent, simcraft)', function () {
  this.timeout(120_000);
  let f: Fleet;
  let server: ServerDetail;
  const rootOf = (id: string) => join(f.agentDir, 'servers', id, 'root');
  const stateOf = (id: string) => join(f.agentDir, 'servers', id, 'state');

  before(async () => {
    f = await startFleet();
    const res = await f.admin.post<ServerDetail>('/servers', {
      name: 'stormy', teamId: f.teamId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 500, memoryBytes: GiB / 4 },
    });
    expect(res.status, res.text).to.equal(201);
    server = await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY' && s.convergence === 'CONVERGED', 'READY');
  });
  after(async () => f.dispose());

  const act = async (action: Action) => {
    const res = await f.admin.post<ServerDetail>(`/servers/${server.id}/${action}`);
    expect(res.status, `${action}: ${res.text}`).to.equal(202);
  };

  /** What a settled server must look like, checked on every sample of a short window after it converged. */
  async function expectSettled(desired: 'RUNNING' | 'STOPPED', actions: Action[]): Promise<void> {
    const what = `${desired} after ${actions.join(' ')}`;
    const settledCheck = async () => {
      const { body: s } = await f.admin.get<ServerDetail>(`/servers/${server.id}`);
      expect(s.desiredState, what).to.equal(desired);
      expect(s.conditions.map((c) => c.reason), what).to.not.include('CRASH_LOOP');
      expect(s.status.lastCrash, `no crash was counted, ${what}`).to.equal(undefined);
      expect({ runtimeState: s.status.runtimeState, convergence: s.convergence, observed: s.observedGeneration }, what)
        .to.deep.equal({ runtimeState: desired, convergence: 'CONVERGED', observed: s.generation });
      const games = await processesIn(rootOf(server.id));
      expect(games, `game processes in the server's root, ${what}`).to.have.length(desired === 'RUNNING' ? 1 : 0);
      const port = s.gamePort!;
      if (desired === 'RUNNING') {
        const run = JSON.parse(await readFile(join(stateOf(server.id), 'run.json'), 'utf8')) as { gamePid: number };
        expect(run.gamePid, 'the game the supervisor tracks is the one running').to.equal(games[0]);
        expect(await greetingOn(port), 'the game answers on the port the API reports').to.match(new RegExp(` on port ${port}:`));
      } else {
        expect(await tcpAccepts(port), 'nothing listens on the game port').to.equal(false);
      }
    };
    try {
      // A crash loop ends the wait at once: it holds until acknowledged, and the checks below say why.
      const converged = (s: ServerDetail) => s.convergence === 'CONVERGED' && s.observedGeneration === s.generation && s.status.runtimeState === desired;
      await waitForServer(f.admin, server.id, (s) => converged(s) || s.conditions.some((c) => c.reason === 'CRASH_LOOP'), what, 45_000);
      // Converged is not enough: a late effect of an earlier action must not undo it.
      const until = Date.now() + 1500;
      do {
        await settledCheck();
        await new Promise((resolve) => setTimeout(resolve, 100));
      } while (Date.now() < until);
    } catch (e) {
      if (e instanceof Error) e.message += `\n${await explain()}`;
      throw e;
    }
  }

  /** What a failure needs to be understood from CI's output alone: the server as reported, its last crash, and the Agent's warnings. */
  async function explain(): Promise<string> {
    const { body: s } = await f.admin.get<ServerDetail>(`/servers/${server.id}`);
    const crash = s.status.lastCrash;
    const warnings = f.agent.stderr.split('\n').filter((line) => /"level":(40|50|60)/.test(line)).slice(-15);
    return [
      `server: ${JSON.stringify({ runtimeState: s.status.runtimeState, convergence: s.convergence, generation: s.generation, observed: s.observedGeneration })}`,
      ...s.conditions.map((c) => `condition ${c.reason}: ${c.message}`),
      ...(crash ? [`last crash: ${JSON.stringify({ at: crash.at, exitCode: crash.exitCode, signal: crash.signal, reason: crash.reason })}`, ...crash.lastLines.map((l) => `  | ${l}`)] : []),
      'the Agent\'s last warnings:', ...warnings,
    ].join('\n');
  }

  it('five back-to-back restarts of a running server leave one game, RUNNING, on its port', async () => {
    await act('start');
    await expectSettled('RUNNING', ['start']);
    const actions: Action[] = ['restart', 'restart', 'restart', 'restart', 'restart'];
    for (const action of actions) await act(action);
    await expectSettled('RUNNING', actions);
  });

  it('three stop/start pairs leave one game, RUNNING', async () => {
    const actions: Action[] = ['stop', 'start', 'stop', 'start', 'stop', 'start'];
    for (const action of actions) await act(action);
    await expectSettled('RUNNING', actions);
  });

  it('a storm of 20 random start/stop/restart converges to the last one asked: one game or none', async () => {
    const seed = Number(process.env.CAIRN_STORM_SEED ?? Date.now() % 100_000);
    const random = seeded(seed);
    const kinds: Action[] = ['start', 'stop', 'restart'];
    const actions = Array.from({ length: 20 }, () => kinds[Math.floor(random() * kinds.length)]);
    for (const action of actions) await act(action);
    await expectSettled(actions[actions.length - 1] === 'stop' ? 'STOPPED' : 'RUNNING', [`(seed ${seed})`, ...actions] as Action[]);
  });

  it('a storm that ends in stop leaves no game and a closed port', async () => {
    const actions: Action[] = ['restart', 'start', 'stop', 'restart', 'stop', 'start', 'restart', 'stop'];
    for (const action of actions) await act(action);
    await expectSettled('STOPPED', actions);
  });
});
