import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LaunchSpec } from '../../src/agent/runtime/launch-spec.js';
import { isPidAlive } from '../../src/agent/runtime/process-control.js';
import { ProcessRuntime, type ProcessRuntimeOptions } from '../../src/agent/runtime/process-runtime.js';
import type { OutputLine, GameExit } from '../../src/agent/runtime/runtime-types.js';
import { parseRunRecord, stateDirFor, stateFiles } from '../../src/agent/runtime/state-dir.js';
import { waitFor } from './wait-for.js';

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

/**
 * Mocha hooks shared by the supervisor suites: a temporary root holding the fake game and one data
 * dir per runtime, and, after the suite, every runtime closed and every shim and game it left killed,
 * so a failing test does not leave processes running into the next suite.
 */
export function supervisorRig() {
  const runtimes: ProcessRuntime[] = [];
  const dataDirs: string[] = [];
  let serial = 0;
  let gamePath: string;
  const rig = {
    root: undefined as unknown as string,

    spec: (env: Record<string, string> = {}, overrides: Partial<LaunchSpec> = {}): LaunchSpec => {
      return { command: process.execPath, args: [gamePath], cwd: rig.root, env, stopCommand: 'stop', stopTimeoutMs: 2000, termTimeoutMs: 2000, ...overrides };
    },

    newRuntime: async (options: Partial<ProcessRuntimeOptions> = {}, dataDir?: string) => {
      const dir = dataDir ?? join(rig.root, `d${(serial += 1)}`);
      if (!dataDirs.includes(dir)) dataDirs.push(dir);
      const runtime = new ProcessRuntime({ dataDir: dir, ...options });
      runtimes.push(runtime);
      const exits: { serverId: string; exit: GameExit }[] = [];
      runtime.onExit((serverId, exit) => exits.push({ serverId, exit }));
      return { runtime, exits, dataDir: dir };
    },

    collect: async (runtime: ProcessRuntime, serverId: string, tail: number) => {
      const lines: OutputLine[] = [];
      const ends: unknown[] = [];
      const detach = await runtime.attach(serverId, { tail, onEnd: (end) => ends.push(end) }, (line) => lines.push(line));
      const waitLine = (text: string) => waitFor(() => lines.find((line) => line.text === text), { timeoutMs: 5000, what: `line ${text}` });
      return { lines, ends, detach, waitLine };
    },
  };

  before(async () => {
    rig.root = await mkdtemp(join(tmpdir(), 'cairn-sup-'));
    gamePath = join(rig.root, 'fake-game.mjs');
    await writeFile(gamePath, fakeGame);
  });

  after(async () => {
    for (const runtime of runtimes) runtime.close();
    await Promise.all(dataDirs.map(killEverythingIn));
    await rm(rig.root, { recursive: true, force: true });
  });

  return rig;
}

export const running = (status: Awaited<ReturnType<ProcessRuntime['status']>>) => {
  if (status.state !== 'running') throw new Error(`expected running, got ${JSON.stringify(status)}`);
  return status;
};

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
