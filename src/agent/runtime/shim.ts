import { connect, createServer, type Server } from 'node:net';
import { chmod, rm } from 'node:fs/promises';
import type { Clock } from '../../shared/clock.js';
import { readProcStat } from '../../shared/proc-stat.js';
import { readOomKills, removeGroup } from './cgroup-files.js';
import { GameProcess } from './game-process.js';
import { parseShimConfig, type ShimConfig } from './launch-spec.js';
import { ShimSession } from './shim-session.js';
import type { GameExit } from './shim-protocol.js';
import { readJsonFile, stateFiles, writeFileAtomic, type RunRecord } from './state-dir.js';

export class ShimAlreadyRunningError extends Error {
  override readonly name = 'ShimAlreadyRunningError';
}

/** The shim's log is its stdout, which the Agent pointed at `shim.log`. */
function log(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), event, ...fields })}\n`);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Takes the socket, removing one left by a dead shim but never stealing a live shim's. */
async function listenExclusive(server: Server, path: string): Promise<void> {
  try {
    await listen(server, path);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EADDRINUSE')) throw error;
    if (await answers(path)) throw new ShimAlreadyRunningError('another shim is serving this state dir');
    await rm(path, { force: true });
    await listen(server, path);
  }
}

async function startTicksOf(pid: number): Promise<number> {
  return (await readProcStat(pid))?.startTicks ?? 0;
}

/** The shim imports nothing but Node built-ins and its own folder, so little can break it. */
const wallClock: Clock = { now: () => new Date() };

/**
 * The per-server supervisor. It runs in the state dir, spawns the game, keeps its console and its
 * exit, and serves the Agent on `shim.sock` until the exit has been collected (or `lingerMs` passed).
 */

export async function runShim(stateDir: string, clock: Clock = wallClock): Promise<void> {
  process.chdir(stateDir);
  const config: ShimConfig = parseShimConfig(await readJsonFile(stateFiles.config));
  const startedAt = clock.now().toISOString();
  let lingerTimer: NodeJS.Timeout | undefined;
  let shuttingDown = false;

  // Served from the first connection: one accepted before a handler existed would stay paused with no one to
  // answer it, and the Agent, which connects as soon as the socket appears, would wait out its deadline.
  const server = createServer({ pauseOnConnect: true }, (socket) => session.serve(socket));
  const shutdown = () => {
    if (shuttingDown) return;
    shuttingDown = true;
    clearTimeout(lingerTimer);
    // Closing the server unlinks shim.sock at once, before any reply to a release is read.
    server.close();
    session.endAll();
    log('shim_exit');
    // Whatever handle might still linger, the shim's work is done.
    setTimeout(() => process.exit(0), 2000).unref();
  };
  const session = new ShimSession({ serverId: config.serverId, shimPid: process.pid, startedAt, consoleLines: config.consoleLines, onRelease: shutdown, log });

  await listenExclusive(server, stateFiles.socket);
  // The socket is made under the shim's umask (the game's, 022); like every state file it is the Agent's alone.
  await chmod(stateFiles.socket, 0o600);
  log('listening');
  await writeFileAtomic(stateFiles.shimPid, `${process.pid}\n`, 0o600, 'process-lifetime');

  const spawned = await GameProcess.spawn(config.launch, clock, (stream, text, truncated) => session.addLine(stream, text, truncated), config.box);
  log('game_spawned', { pid: spawned instanceof GameProcess ? spawned.pid : null });
  let stopRequestedBySignal = false;
  const onExit = async (ended: GameExit) => {
    const exit = await withBoxOutcome(ended, config);
    log('game_exit', { ...exit });
    try {
      await writeFileAtomic(stateFiles.exit, `${JSON.stringify(exit)}\n`, 0o600, 'process-lifetime');
    } catch (error) {
      // Connected clients still hear the exit; only a later adopt would miss it.
      log('exit_record_failed', { message: error instanceof Error ? error.message : String(error) });
    }
    session.announceExit(exit);
    if (stopRequestedBySignal) shutdown();
    else lingerTimer = setTimeout(shutdown, config.lingerMs);
  };

  if (!(spawned instanceof GameProcess)) {
    session.setGame({ kind: 'never-ran', exit: spawned });
    await onExit(spawned);
    return;
  }
  const game = spawned;
  // The host is shutting down (or an operator asked): stop the game gracefully, then leave.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log('signal', { signal });
      stopRequestedBySignal = true;
      if (game.phase.state === 'exited') shutdown();
      else void game.stop(null);
    });
  }
  await writeFileAtomic(stateFiles.gamePid, `${game.pid}\n`, 0o600, 'process-lifetime');
  if (game.innerPid !== game.pid) session.setInnerPid(game.innerPid);
  const run: RunRecord = {
    serverId: config.serverId,
    shimPid: process.pid,
    shimStartTicks: await startTicksOf(process.pid),
    gamePid: game.pid,
    gameStartTicks: await startTicksOf(game.pid),
    startedAt,
  };
  await writeFileAtomic(stateFiles.run, `${JSON.stringify(run)}\n`, 0o600, 'process-lifetime');
  // Only now may the Agent hear of the game: whatever happens next, the state dir knows its pid.
  session.setGame({ kind: 'process', game });
  log('game_started', { pid: game.pid, innerPid: game.innerPid });

  void game.exited.then(onExit);
}

/**
 * A boxed game's exit with what its cgroup saw: the kernel's OOM kill, told apart from any other
 * SIGKILL by the group's own count. The group goes with the game.
 */
async function withBoxOutcome(exit: GameExit, config: ShimConfig): Promise<GameExit> {
  if (!config.box) return exit;
  const oomKilled = config.box.oomFile !== null && (await readOomKills(config.box.oomFile)) > 0;
  for (const dir of config.box.cgroupDirs) {
    await removeGroup(dir).catch((error: unknown) => log('cgroup_remove_failed', { dir, message: error instanceof Error ? error.message : String(error) }));
  }
  return oomKilled ? { ...exit, oomKilled: true } : exit;
}
