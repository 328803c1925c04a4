import { expect } from 'chai';
import { join } from 'node:path';
import { isRuntimeError } from '../../src/agent/runtime/errors.js';
import { isPidAlive } from '../../src/agent/runtime/process-control.js';
import { running, supervisorRig } from '../support/supervisor-rig.js';
import { waitFor } from '../support/wait-for.js';

describe('supervisor: shim and process runtime with real processes — stop, kill, crash', function () {
  const rig = supervisorRig();
  const { spec, newRuntime } = rig;

  it('stops gracefully with the stop command', async () => {
    const { runtime, exits } = await newRuntime();
    const { gamePid, shimPid } = running(await runtime.start('game', spec()));
    const exit = await runtime.stop('game');
    expect(exit).to.include({ cause: 'stopped', stoppedBy: 'command', code: 0, signal: null });
    expect(exits).to.deep.equal([{ serverId: 'game', exit }]);
    expect(isPidAlive(gamePid)).to.equal(false);
    await waitFor(() => !isPidAlive(shimPid), { what: 'the released shim to leave' });
    expect(await runtime.status('game')).to.deep.include({ state: 'exited', exit });
  });

  it('escalates to SIGTERM when the stop command is ignored', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec({ IGNORE_STOP: '1' }));
    const exit = await runtime.stop('game', { timeoutMs: 300 });
    expect(exit).to.include({ cause: 'stopped', stoppedBy: 'sigterm', signal: 'SIGTERM', code: null });
  });

  it('escalates to SIGKILL when SIGTERM is ignored too, within the timeouts', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec({ IGNORE_STOP: '1', IGNORE_SIGTERM: '1' }, { termTimeoutMs: 300 }));
    const startedAt = Date.now();
    const exit = await runtime.stop('game', { timeoutMs: 300 });
    expect(exit).to.include({ cause: 'stopped', stoppedBy: 'sigkill', signal: 'SIGKILL' });
    expect(Date.now() - startedAt).to.be.below(2500);
  });

  it('a shim told to terminate (host shutdown) stops the game gracefully and leaves', async () => {
    const { runtime, exits } = await newRuntime();
    const { shimPid } = running(await runtime.start('game', spec()));
    process.kill(shimPid, 'SIGTERM');
    const [{ exit }] = await waitFor(() => exits.length > 0 && exits);
    expect(exit).to.include({ cause: 'stopped', stoppedBy: 'command', code: 0 });
    await waitFor(() => !isPidAlive(shimPid), { what: 'the shim to leave' });
  });

  it('kills on request', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec({ IGNORE_SIGTERM: '1' }));
    expect(await runtime.kill('game')).to.include({ cause: 'killed', signal: 'SIGKILL' });
  });

  it('reports a crash through onExit, and commands after it are refused', async () => {
    const { runtime, exits } = await newRuntime();
    await runtime.start('game', spec());
    await runtime.sendCommand('game', 'crash');
    const [{ exit }] = await waitFor(() => exits.length > 0 && exits);
    expect(exit).to.include({ cause: 'exited', code: 1 });
    const refused = await runtime.sendCommand('game', 'anyone?').catch((error: unknown) => error);
    expect(isRuntimeError(refused, 'not_running')).to.equal(true);
  });

  it('a stop or kill asked while an exit is being collected settles only after that exit was reported', async () => {
    const { runtime, exits } = await newRuntime();
    await runtime.start('game', spec());
    await runtime.sendCommand('game', 'crash');
    // Asked every millisecond from before the exit until after it: some land while it is collected.
    const early: string[] = [];
    const asked: Promise<void>[] = [];
    const settle = (what: string) => () => {
      if (exits.length === 0) early.push(what);
    };
    for (let i = 0; i < 60; i++) {
      const action = i % 2 === 0 ? runtime.stop('game') : runtime.kill('game');
      asked.push(action.then(settle('resolved'), (e: unknown) => {
        if (!isRuntimeError(e, 'not_running')) throw e;
        settle('not_running')();
      }));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(asked);
    expect(early, 'stops and kills that settled before the exit was reported').to.deep.equal([]);
    // The crash or an early kill ended it; either way its one exit was reported once.
    expect(exits).to.have.length(1);
  });

  it('reports a game that cannot be spawned as spawn_failed', async () => {
    const { runtime, exits } = await newRuntime();
    const status = await runtime.start('game', spec({}, { command: join(rig.root, 'no-such-program') }));
    expect(status.state).to.equal('exited');
    expect(exits[0].exit).to.include({ cause: 'spawn_failed' });
  });

  it('refuses a second start while the game runs', async () => {
    const { runtime } = await newRuntime();
    await runtime.start('game', spec());
    const refused = await runtime.start('game', spec()).catch((error: unknown) => error);
    expect(isRuntimeError(refused, 'already_running')).to.equal(true);
  });
});
