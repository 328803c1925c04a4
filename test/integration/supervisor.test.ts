import { expect } from 'chai';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRuntimeError } from '../../src/agent/runtime/errors.js';
import type { LaunchSpec } from '../../src/agent/runtime/launch-spec.js';
import { isPidAlive } from '../../src/agent/runtime/process-control.js';
import { readProcStat } from '../../src/agent/runtime/process-usage.js';
import { launchShim } from '../../src/agent/runtime/shim-launcher.js';
import { programCommand } from '../../src/shared/programs.js';
import { SHIM_BUSY_EXIT_CODE } from '../../src/agent/runtime/shim-protocol.js';
import { ProcessRuntime, type ProcessRuntimeOptions } from '../../src/agent/runtime/process-runtime.js';
import type { OutputLine, GameExit } from '../../src/agent/runtime/runtime-types.js';
import { parseRunRecord, stateDirFor, stateFiles } from '../../src/agent/runtime/state-dir.js';
import { waitFor } from '../support/wait-for.js';

/** The fake game: echoes stdin, and a few words make it misbehave the way real servers do. */
const fakeGame = `
import { createInterface } from 'node:readline';
if (process.env.IGNORE_SIGTERM === '1') process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
console.log('fake game ready');
for (let i = 0; i < Number(process.env.PRINT_LINES ?? 0); i += 1) console.log('line ' + i);
let tick = 0;
// Like a Minecraft server, it keeps running when its stdin closes.
setInterval(() => { if (process.env.TICK === '1') console.log('tick ' + tick++); }, 50);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'crash') { console.log('crashing'); process.exit(1); }
  if (line === 'stop') {
    if (process.env.IGNORE_STOP === '1') { console.log('ignoring stop'); return; }
    console.log('stopping'); process.exit(0);
  }
  if (line === 'long') { console.log('x'.repeat(20000)); return; }
  if (line === 'euro') { console.log('\\u20ac'.repeat(7000)); return; }
  if (line === 'crlf') { process.stdout.write('first\\r\\nsecond\\r\\n'); return; }
  if (line === 'err') { console.error('to stderr'); return; }
  if (line === 'partial') { process.stdout.write('no newline at the end'); process.exit(3); }
  console.log('echo: ' + line);
});
`;

describe('supervisor: shim and process runtime with real processes', function () {
  let root: string;
  let gamePath: string;
  const runtimes: ProcessRuntime[] = [];
  const dataDirs: string[] = [];
  let serial = 0;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'cairn-sup-'));
    gamePath = join(root, 'fake-game.mjs');
    await writeFile(gamePath, fakeGame);
  });

  after(async () => {
    for (const runtime of runtimes) runtime.close();
    await Promise.all(dataDirs.map(killEverythingIn));
    await rm(root, { recursive: true, force: true });
  });

  function spec(env: Record<string, string> = {}, overrides: Partial<LaunchSpec> = {}): LaunchSpec {
    return { command: process.execPath, args: [gamePath], cwd: root, env, stopCommand: 'stop', stopTimeoutMs: 2000, termTimeoutMs: 2000, ...overrides };
  }

  async function newRuntime(options: Partial<ProcessRuntimeOptions> = {}, dataDir?: string) {
    const dir = dataDir ?? join(root, `d${(serial += 1)}`);
    if (!dataDirs.includes(dir)) dataDirs.push(dir);
    const runtime = new ProcessRuntime({ dataDir: dir, ...options });
    runtimes.push(runtime);
    const exits: { serverId: string; exit: GameExit }[] = [];
    runtime.onExit((serverId, exit) => exits.push({ serverId, exit }));
    return { runtime, exits, dataDir: dir };
  }

  async function collect(runtime: ProcessRuntime, serverId: string, tail: number) {
    const lines: OutputLine[] = [];
    const ends: unknown[] = [];
    const detach = await runtime.attach(serverId, { tail, onEnd: (end) => ends.push(end) }, (line) => lines.push(line));
    const waitLine = (text: string) => waitFor(() => lines.find((line) => line.text === text), { timeoutMs: 5000, what: `line ${text}` });
    return { lines, ends, detach, waitLine };
  }

  const running = (status: Awaited<ReturnType<ProcessRuntime['status']>>) => {
    if (status.state !== 'running') throw new Error(`expected running, got ${JSON.stringify(status)}`);
    return status;
  };

  describe('console', () => {
    it('streams output, takes commands and replays the tail in order', async () => {
      const { runtime } = await newRuntime();
      running(await runtime.start('game', spec({ PRINT_LINES: '50' })));
      const first = await collect(runtime, 'game', 1000);
      await first.waitLine('line 49');
      await runtime.sendCommand('game', 'hello there');
      await first.waitLine('echo: hello there');

      const second = await collect(runtime, 'game', 10);
      await second.waitLine('echo: hello there');
      expect(second.lines.map((line) => line.text)).to.deep.equal([...Array.from({ length: 9 }, (_, i) => `line ${41 + i}`), 'echo: hello there']);
      const seqs = second.lines.map((line) => line.seq);
      expect(seqs).to.deep.equal(seqs.map((_, i) => seqs[0] + i));
      first.detach();
      second.detach();
    });

    it('cuts long lines at 16 KiB on a character boundary, handles CRLF and stderr', async () => {
      const { runtime } = await newRuntime();
      await runtime.start('game', spec());
      const reader = await collect(runtime, 'game', 10);
      await reader.waitLine('fake game ready');
      for (const word of ['long', 'euro', 'crlf', 'err']) await runtime.sendCommand('game', word);
      await reader.waitLine('to stderr');
      const [long, euro, crlfFirst, crlfSecond, stderr] = reader.lines.slice(1);
      expect([long.text.length, long.text === 'x'.repeat(16384), long.truncated]).to.deep.equal([16384, true, true]);
      expect([euro.text.length, euro.text === '\u20ac'.repeat(5461), Buffer.byteLength(euro.text), euro.truncated]).to.deep.equal([5461, true, 16383, true]);
      expect([crlfFirst.text, crlfSecond.text, crlfFirst.truncated]).to.deep.equal(['first', 'second', false]);
      expect([stderr.text, stderr.stream]).to.deep.equal(['to stderr', 'stderr']);
      reader.detach();
    });

    it('serves several readers; one that detaches stops receiving while the others go on', async () => {
      const { runtime } = await newRuntime();
      await runtime.start('game', spec());
      const kept = await collect(runtime, 'game', 0);
      const dropped = await collect(runtime, 'game', 0);
      dropped.detach();
      await runtime.sendCommand('game', 'after detach');
      await kept.waitLine('echo: after detach');
      expect(dropped.lines).to.deep.equal([]);
      expect(dropped.ends).to.deep.equal([]);
      kept.detach();
    });

    it('flushes a last line without newline and reports the exit code', async () => {
      const { runtime, exits } = await newRuntime();
      await runtime.start('game', spec());
      const reader = await collect(runtime, 'game', 0);
      await runtime.sendCommand('game', 'partial');
      await reader.waitLine('no newline at the end');
      const [{ exit }] = await waitFor(() => exits.length > 0 && exits);
      expect(exit).to.include({ cause: 'exited', code: 3 });
      await waitFor(() => reader.ends.length > 0);
      expect(reader.ends[0]).to.deep.equal({ kind: 'exit', exit });
    });

    it('answers a malformed frame with an error and keeps serving', async () => {
      const { runtime, dataDir } = await newRuntime();
      await runtime.start('game', spec());
      const socket = connect(join(stateDirFor(dataDir, 'game'), stateFiles.socket));
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.write('this is not json\n{"id":7,"type":"explode"}\n{"id":8,"type":"input","line":"a\\nb"}\n{"id":9,"type":"status"}\n');
      await waitFor(() => received.split('\n').length > 4);
      const replies = received.trim().split('\n').map((line) => JSON.parse(line) as { id: number | null; type: string; code?: string });
      expect(replies.map((reply) => [reply.id, reply.type, reply.code])).to.deep.equal([
        [null, 'error', 'malformed'],
        [7, 'error', 'invalid_request'],
        [8, 'error', 'invalid_request'],
        [9, 'status', undefined],
      ]);
      socket.destroy();
      running(await runtime.status('game'));
    });

    it('reports CPU time and memory of the game process', async () => {
      const { runtime } = await newRuntime();
      const { gamePid } = running(await runtime.start('game', spec()));
      // Right after the spawn the child may not have finished loading its program, so its memory is polled.
      const usage = await waitFor(async () => {
        const sample = await runtime.usage('game');
        return (sample?.memoryBytes ?? 0) > 1024 * 1024 && sample;
      }, { what: 'the game\'s memory above 1 MiB' });
      expect(usage?.pid).to.equal(gamePid);
      expect(usage?.cpuMillis).to.be.at.least(0);
    });
  });

  describe('stop, kill, crash', () => {
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

    it('reports a game that cannot be spawned as spawn_failed', async () => {
      const { runtime, exits } = await newRuntime();
      const status = await runtime.start('game', spec({}, { command: join(root, 'no-such-program') }));
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

    it('a second shim on a state dir another shim serves refuses with its own exit code; the game of the one serving goes on', async () => {
      const { runtime, dataDir } = await newRuntime();
      const { gamePid, shimPid } = running(await runtime.start('game', spec()));
      const second = await launchShim(stateDirFor(dataDir, 'game'));
      expect(await second.exited).to.equal(SHIM_BUSY_EXIT_CODE);
      expect(isPidAlive(gamePid) && isPidAlive(shimPid)).to.equal(true);
      expect(running(await runtime.status('game'))).to.include({ gamePid, shimPid });
      await runtime.sendCommand('game', 'still one');
    });

    it('a shim that finds another serving refuses, and the runtime adopts the game of the one serving instead of failing', async () => {
      // Stands in for the race: while the runtime launches its shim, another shim takes the state dir
      // first. The state dir is too deep for a socket path, so the runtime can reach a shim only
      // through its own launch's /proc/<pid>/cwd, which the racer moves away from: only adoption finds the other.
      const racer = join(root, 'racing-shim.mjs');
      await writeFile(racer, `
        import { spawn } from 'node:child_process';
        import { existsSync } from 'node:fs';
        const [real, stateDir] = [JSON.parse(process.argv[2]), process.argv[3]];
        process.chdir('/');
        spawn(real.command, [...real.args, stateDir], { cwd: stateDir, detached: true, stdio: 'ignore' }).unref();
        const wait = setInterval(() => { if (existsSync(stateDir + '/shim.pid')) { clearInterval(wait); process.exit(${SHIM_BUSY_EXIT_CODE}); } }, 5);
      `);
      const deep = join(root, 'r'.repeat(60), 's'.repeat(60));
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

  it('works with a state dir too deep for a unix socket path', async () => {
    const deep = join(root, 'a'.repeat(60), 'b'.repeat(60));
    await mkdir(deep, { recursive: true });
    const { runtime } = await newRuntime({}, deep);
    await runtime.start('game', spec());
    const reader = await collect(runtime, 'game', 10);
    await reader.waitLine('fake game ready');
    await runtime.sendCommand('game', 'deep');
    await reader.waitLine('echo: deep');
    reader.detach();
  });
});

/** Gone, or a zombie: an orphan's new parent may be an init that is slow to reap it (or, in a container, never does). */
async function isGone(pid: number): Promise<boolean> {
  const stat = await readProcStat(pid);
  return stat === null || stat.state === 'Z';
}

/** Ends every shim and game a test left behind, found by their pid files. */
async function killEverythingIn(dataDir: string): Promise<void> {
  const servers = await readdir(join(dataDir, 'servers')).catch(() => []);
  for (const serverId of servers) {
    const stateDir = stateDirFor(dataDir, serverId);
    const run = parseRunRecord(JSON.parse(await readFile(join(stateDir, stateFiles.run), 'utf8').catch(() => 'null')));
    const pids = [run?.gamePid, run?.shimPid];
    for (const name of [stateFiles.shimPid, stateFiles.gamePid]) {
      pids.push(Number.parseInt(await readFile(join(stateDir, name), 'utf8').catch(() => ''), 10));
    }
    for (const pid of new Set(pids)) {
      if (pid && Number.isSafeInteger(pid) && isPidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
}
