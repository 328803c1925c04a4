import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRuntimeError } from '../../src/agent/runtime/errors.js';
import { isPidAlive } from '../../src/agent/runtime/process-control.js';
import { readProcStat } from '../../src/shared/proc-stat.js';
import type { ShimConfig } from '../../src/agent/runtime/launch-spec.js';
import { ShimConnection } from '../../src/agent/runtime/shim-connection.js';
import { launchShim } from '../../src/agent/runtime/shim-launcher.js';
import { programCommand } from '../../src/shared/programs.js';
import { SHIM_BUSY_EXIT_CODE } from '../../src/agent/runtime/shim-protocol.js';
import type { OutputLine, GameExit } from '../../src/agent/runtime/runtime-types.js';
import { stateDirFor, stateFiles } from '../../src/agent/runtime/state-dir.js';
import { running, supervisorRig } from '../support/supervisor-rig.js';
import { waitFor } from '../support/wait-for.js';

describe('supervisor: shim and process runtime with real processes — Agent restarts and shims', function () {
  const rig = supervisorRig();
  const { spec, newRuntime, collect } = rig;

  describe('Agent restarts', () => {
    it('a new runtime adopts the running shim: same game, console still flowing, commands work', async () => {
      const first = await newRuntime();
      const { gamePid } = running(await first.runtime.start('game', spec({ TICK: '1' })));
      const before = await collect(first.runtime, 'game', 0);
      await before.waitLine('tick 2');
      first.runtime.close();
      const lastTickBefore = Math.max(...before.lines.filter((line) => line.text.startsWith('tick ')).map((line) => Number(line.text.slice(5))));

      const second = await newRuntime({}, first.dataDir);
      const adopted = await second.runtime.adoptAll();
      const outcome = adopted.get('game');
      expect(outcome?.ok && outcome.status).to.deep.include({ state: 'running', gamePid });

      const after = await collect(second.runtime, 'game', 2000);
      await after.waitLine(`tick ${lastTickBefore + 5}`);
      await second.runtime.sendCommand('game', 'still there?');
      await after.waitLine('echo: still there?');
      const ticks = after.lines.filter((line) => line.text.startsWith('tick ')).map((line) => Number(line.text.slice(5)));
      expect(ticks).to.deep.equal(ticks.map((_, i) => i));

      await second.runtime.sendCommand('game', 'crash');
      const [{ exit }] = await waitFor(() => second.exits.length > 0 && second.exits);
      expect(exit).to.include({ cause: 'exited', code: 1 });
      expect(first.exits).to.deep.equal([]);
    });

    for (const lingering of [true, false]) {
      it(`reports an exit that happened while no Agent was connected (${lingering ? 'shim still lingering' : 'shim gone, from exit.json'})`, async () => {
        const first = await newRuntime({ lingerMs: lingering ? 60_000 : 100 });
        const { gamePid, shimPid } = running(await first.runtime.start('game', spec()));
        first.runtime.close();
        process.kill(gamePid, 'SIGKILL');
        const stateDir = stateDirFor(first.dataDir, 'game');
        await waitFor(() => readFile(join(stateDir, stateFiles.exit), 'utf8'));
        if (!lingering) await waitFor(() => !isPidAlive(shimPid), { what: 'the shim to leave' });

        const second = await newRuntime({}, first.dataDir);
        const status = await second.runtime.adopt('game');
        expect(status.state).to.equal('exited');
        expect(second.exits.map((e) => e.exit)).to.deep.equal([{ code: null, signal: 'SIGKILL', at: second.exits[0].exit.at, cause: 'exited' }]);
        await waitFor(() => !isPidAlive(shimPid), { what: 'the released shim to leave' });

        const third = await newRuntime({}, first.dataDir);
        expect((await third.runtime.adopt('game')).state).to.equal('exited');
        expect(third.exits).to.deep.equal([]);
      });
    }
  });

  describe('a shim that dies', () => {
    it('while the Agent is connected: the orphaned game is ended with SIGTERM and reported as shim_lost', async () => {
      const { runtime, exits } = await newRuntime();
      const { gamePid, shimPid } = running(await runtime.start('game', spec()));
      process.kill(shimPid, 'SIGKILL');
      const [{ exit }] = await waitFor(() => exits.length > 0 && exits);
      expect(exit).to.include({ cause: 'shim_lost', signal: 'SIGTERM', code: null });
      expect(await isGone(gamePid)).to.equal(true);
      expect((await runtime.status('game')).state).to.equal('exited');
    });

    it('while no Agent runs: the game keeps running until the next adoption ends it', async () => {
      const first = await newRuntime();
      const { gamePid, shimPid } = running(await first.runtime.start('game', spec()));
      first.runtime.close();
      process.kill(shimPid, 'SIGKILL');
      await waitFor(() => !isPidAlive(shimPid));
      expect(await isGone(gamePid)).to.equal(false);

      const second = await newRuntime({}, first.dataDir);
      const status = await second.runtime.adopt('game');
      expect(status).to.deep.include({ state: 'exited' });
      expect(second.exits[0].exit).to.include({ cause: 'shim_lost' });
      expect(await isGone(gamePid)).to.equal(true);
    });
  });

  describe('one shim per server; the console outlives the game', () => {
    it('an exit comes with the last lines of the console, each dated when printed, kept for replay until the next start', async () => {
      const { runtime } = await newRuntime();
      const heard: { exit: GameExit; lines: OutputLine[] }[] = [];
      runtime.onExit((_serverId, exit, lines) => heard.push({ exit, lines: [...lines] }));
      const before = Date.now();
      await runtime.start('game', spec({ PRINT_LINES: '5' }));
      await (await collect(runtime, 'game', 10)).waitLine('line 4');
      await runtime.sendCommand('game', 'crash');
      const [{ exit, lines }] = await waitFor(() => heard.length > 0 && heard);
      expect(exit).to.include({ cause: 'exited', code: 1 });
      expect(lines.map((line) => line.text).slice(-3)).to.deep.equal(['line 3', 'line 4', 'crashing']);
      for (const line of lines) expect(line.at).to.be.within(before, Date.now());
      expect(runtime.lastRun('game')).to.deep.equal({ exit, lines });
      await runtime.start('game', spec());
      expect(runtime.lastRun('game')).to.equal(undefined);
    });

    it('a client that connects the moment the socket appears is answered (the Agent polls for it; a connection accepted before the shim listened for connections was never served)', async () => {
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const stateDir = stateDirFor(join(rig.root, `eager-${attempt}`), 'game');
        await mkdir(stateDir, { recursive: true, mode: 0o700 });
        const config: ShimConfig = { serverId: 'game', launch: spec(), consoleLines: 100, lingerMs: 100 };
        await writeFile(join(stateDir, stateFiles.config), JSON.stringify(config), { mode: 0o600 });
        const shim = await launchShim(stateDir);
        let conn: ShimConnection | undefined;
        while (!conn) conn = await ShimConnection.open(join(stateDir, stateFiles.socket), 5000).catch(() => undefined);
        try {
          const { status } = await conn.request({ type: 'status' }, 5000);
          expect(status).to.include({ serverId: 'game', state: 'running' });
          await conn.request({ type: 'kill' }, 5000);
        } finally {
          conn.close();
          shim.kill();
        }
      }
    });

    it('a second shim on a state dir another shim serves refuses with its own exit code; the game of the one serving goes on', async () => {
      const { runtime, dataDir } = await newRuntime();
      const { gamePid, shimPid } = running(await runtime.start('game', spec()));
      const second = await launchShim(stateDirFor(dataDir, 'game'));
      expect(await second.exited).to.equal(SHIM_BUSY_EXIT_CODE);
      expect(isPidAlive(gamePid) && isPidAlive(shimPid)).to.equal(true);
      expect(running(await runtime.status('game'))).to.include({ gamePid, shimPid });
      await runtime.sendCommand('game', 'still one');
    });

    it('a shim that dies just after its socket answered fails the start with its exit and last words, not a closed connection', async () => {
      // Stands in for a shim that listens, then fails to start the game (its log is its stdout, shim.log).
      const dying = join(rig.root, 'dying-shim.mjs');
      await writeFile(dying, `
        import { createServer } from 'node:net';
        const server = createServer((socket) => {
          console.log('could not create the game\\'s cgroup: EBUSY');
          socket.destroy();
          process.exit(1);
        });
        server.listen(process.argv[2] + '/shim.sock');
      `);
      const { runtime } = await newRuntime({ shimCommand: { command: process.execPath, args: [dying] } });
      const refused = await runtime.start('game', spec()).catch((error: unknown) => error);
      expect(isRuntimeError(refused, 'shim_unavailable'), String(refused)).to.equal(true);
      expect((refused as Error).message).to.match(/the shim exited during start \(code 1\): .*could not create the game's cgroup: EBUSY/s);
    });

    it('a shim that closes a connection before its first answer leaves nothing behind: the next start runs a game', async () => {
      // Seen in a full CI run: an adoption connected to a shim that was leaving, the connection closed before the
      // runtime listened for its close, and every later start of the server failed on that dead connection.
      const { runtime, dataDir } = await newRuntime();
      const stateDir = stateDirFor(dataDir, 'game');
      await mkdir(stateDir, { recursive: true, mode: 0o700 });
      // A large config keeps the runtime reading it (between its connect and its first request) while the close arrives.
      const config: ShimConfig = { serverId: 'game', launch: spec({ PADDING: 'x'.repeat(16 * 1024 * 1024) }), consoleLines: 100, lingerMs: 1000 };
      await writeFile(join(stateDir, stateFiles.config), JSON.stringify(config));
      const leaving = join(rig.root, 'leaving-shim.mjs');
      await writeFile(leaving, `
        import { createServer } from 'node:net';
        import { writeFileSync } from 'node:fs';
        const server = createServer((socket) => { socket.destroy(); server.close(() => process.exit(0)); });
        server.listen('shim.sock', () => { writeFileSync('shim.pid', process.pid + '\\n'); console.log('ready'); });
      `);
      const shim = spawn(process.execPath, [leaving], { cwd: stateDir, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise((resolve) => shim.stdout.once('data', resolve));
      const exited = new Promise((resolve) => shim.once('exit', resolve));
      await runtime.adopt('game').catch(() => undefined);
      await exited;
      const { gamePid } = running(await runtime.start('game', spec()));
      expect(isPidAlive(gamePid)).to.equal(true);
      await runtime.sendCommand('game', 'after');
    });

    it('a shim that finds another serving refuses, and the runtime adopts the game of the one serving instead of failing', async () => {
      // Stands in for the race: while the runtime launches its shim, another shim takes the state dir
      // first. The state dir is too deep for a socket path, so the runtime can reach a shim only
      // through its own launch's /proc/<pid>/cwd, which the racer moves away from: only adoption finds the other.
      const racer = join(rig.root, 'racing-shim.mjs');
      await writeFile(racer, `
        import { spawn } from 'node:child_process';
        import { existsSync } from 'node:fs';
        const [real, stateDir] = [JSON.parse(process.argv[2]), process.argv[3]];
        process.chdir('/');
        spawn(real.command, [...real.args, stateDir], { cwd: stateDir, detached: true, stdio: 'ignore' }).unref();
        const wait = setInterval(() => { if (existsSync(stateDir + '/shim.pid')) { clearInterval(wait); process.exit(${SHIM_BUSY_EXIT_CODE}); } }, 5);
      `);
      const deep = join(rig.root, 'r'.repeat(60), 's'.repeat(60));
      const shimCommand = { command: process.execPath, args: [racer, JSON.stringify(programCommand('shim'))] };
      const { runtime, exits } = await newRuntime({ shimCommand }, deep);
      const refused = await runtime.start('game', spec()).catch((error: unknown) => error);
      expect(isRuntimeError(refused, 'already_running'), String(refused)).to.equal(true);
      const { gamePid } = running(await runtime.status('game'));
      expect(isPidAlive(gamePid)).to.equal(true);
      const reader = await collect(runtime, 'game', 0);
      await runtime.sendCommand('game', 'adopted');
      await reader.waitLine('echo: adopted');
      expect(exits).to.deep.equal([]);
    });

    it('an exit reported before (its Agent died before releasing the shim) is not reported again', async () => {
      const first = await newRuntime({ lingerMs: 60_000 });
      const { gamePid, shimPid } = running(await first.runtime.start('game', spec()));
      first.runtime.close();
      process.kill(gamePid, 'SIGKILL');
      const stateDir = stateDirFor(first.dataDir, 'game');
      await waitFor(() => readFile(join(stateDir, stateFiles.exit), 'utf8'));
      // What an Agent does once it reported the exit, before it releases the shim.
      await rename(join(stateDir, stateFiles.exit), join(stateDir, stateFiles.reportedExit));

      const second = await newRuntime({}, first.dataDir);
      expect((await second.runtime.adopt('game')).state).to.equal('exited');
      expect(second.exits).to.deep.equal([]);
      await waitFor(() => !isPidAlive(shimPid), { what: 'the released shim to leave' });
    });
  });
});

/** Gone, or a zombie: an orphan's new parent may be an init that is slow to reap it (or, in a container, never does). */
async function isGone(pid: number): Promise<boolean> {
  const stat = await readProcStat(pid);
  return stat === null || stat.state === 'Z';
}
