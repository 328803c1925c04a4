import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import { isSameProcessAlive } from '../../shared/proc-stat.js';
import { parseShimConfig } from './launch-spec.js';
import { signalGroup } from './process-control.js';
import { parseGameExit, type GameExit } from './shim-protocol.js';
import { parseRunRecord, readJsonFile, stateFiles, writeFileAtomic } from './state-dir.js';

/** What the files of a state dir say when no shim answers on its socket. */
export type SettledRun =
  | { kind: 'unreported'; exit: GameExit; startedAt: string | null }
  | { kind: 'reported'; exit: GameExit; startedAt: string | null }
  | { kind: 'none' };

const DEFAULT_TERM_TIMEOUT_MS = 10_000;
const KILL_WAIT_MS = 5_000;
const POLL_MS = 50;

async function waitForDeath(pid: number, startTicks: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isSameProcessAlive(pid, startTicks))) return true;
    await sleep(POLL_MS);
  }
  return !(await isSameProcessAlive(pid, startTicks));
}

async function readExit(path: string): Promise<GameExit | null> {
  const value = await readJsonFile(path);
  return value === null ? null : parseGameExit(value);
}

async function termTimeoutOf(stateDir: string): Promise<number> {
  try {
    return parseShimConfig(await readJsonFile(join(stateDir, stateFiles.config))).launch.termTimeoutMs;
  } catch {
    return DEFAULT_TERM_TIMEOUT_MS;
  }
}

/**
 * Ends a game whose shim is gone. Such a game has no console, no stdin for its stop command and no
 * one to record its exit, yet it holds the game port, so a restart could not bind. It gets SIGTERM
 * (a Minecraft server saves its worlds on it), then SIGKILL; the exit is recorded as `shim_lost`.
 */
async function endOrphan(stateDir: string, gamePid: number, gameStartTicks: number, clock: Clock): Promise<GameExit> {
  if (!(await isSameProcessAlive(gamePid, gameStartTicks))) {
    return { code: null, signal: null, at: clock.now().toISOString(), cause: 'shim_lost' };
  }
  signalGroup(gamePid, 'SIGTERM');
  let signal: NodeJS.Signals = 'SIGTERM';
  if (!(await waitForDeath(gamePid, gameStartTicks, await termTimeoutOf(stateDir)))) {
    signal = 'SIGKILL';
    signalGroup(gamePid, 'SIGKILL');
    await waitForDeath(gamePid, gameStartTicks, KILL_WAIT_MS);
  }
  return { code: null, signal, at: clock.now().toISOString(), cause: 'shim_lost' };
}

/** Reads (and, for a game left without its shim, first brings about) the end of the last run. */
export async function settleWithoutShim(stateDir: string, clock: Clock): Promise<SettledRun> {
  const run = parseRunRecord(await readJsonFile(join(stateDir, stateFiles.run)));
  const startedAt = run?.startedAt ?? null;
  const unreported = await readExit(join(stateDir, stateFiles.exit));
  if (unreported) return { kind: 'unreported', exit: unreported, startedAt };
  const reported = await readExit(join(stateDir, stateFiles.reportedExit));
  if (reported) return { kind: 'reported', exit: reported, startedAt };
  if (!run) return { kind: 'none' };
  const exit = await endOrphan(stateDir, run.gamePid, run.gameStartTicks, clock);
  await writeFileAtomic(join(stateDir, stateFiles.exit), `${JSON.stringify(exit)}\n`, 0o600, 'process-lifetime');
  return { kind: 'unreported', exit, startedAt };
}
