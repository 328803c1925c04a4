import { readFile } from 'node:fs/promises';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long the box may take to name its first process and for that process to start the game. */
const FIND_DEADLINE_MS = 5000;
const CHILD_POLL_MS = 2;

/** A boxed game's processes on the host: the group to signal and the game's own pid. */
export interface BoxedGame {
  /** The box's first process (the pid namespace's init), which leads the game's session and group. */
  group: number;
  gamePid: number;
}

async function readAll(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

async function firstChild(pid: number): Promise<number | null> {
  try {
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim();
    return children ? Number(children.split(' ')[0]) : null;
  } catch {
    return null;
  }
}

/**
 * Reads bubblewrap's info fd (`{"child-pid": N, ...}`: the namespace's init) and then finds the
 * game, the init's child. Null when the box ended or said nothing in time: the shim then treats
 * the spawned process as the game, which is still right for signals that kill.
 */
export async function findBoxedGame(info: Readable, exited: Promise<unknown>): Promise<BoxedGame | null> {
  const deadline = Date.now() + FIND_DEADLINE_MS;
  const gone = exited.then(() => null);
  const text = await Promise.race([readAll(info), gone, sleep(FIND_DEADLINE_MS, null)]);
  if (!text) return null;
  let group: unknown;
  try {
    group = (JSON.parse(text) as Record<string, unknown>)['child-pid'];
  } catch {
    return null;
  }
  if (typeof group !== 'number' || !Number.isInteger(group) || group <= 0) return null;
  while (Date.now() < deadline) {
    const child = await firstChild(group);
    if (child !== null) return { group, gamePid: child };
    if ((await Promise.race([gone, sleep(CHILD_POLL_MS, 'poll' as const)])) === null) break;
  }
  return { group, gamePid: group };
}

/** The signal a box's exit code of 128 + n stands for, or null for an ordinary code. */
export function signalOfBoxExit(code: number | null): NodeJS.Signals | null {
  if (code === null || code <= 128) return null;
  const number = code - 128;
  const name = Object.entries(constants.signals).find(([, n]) => n === number)?.[0];
  return (name as NodeJS.Signals | undefined) ?? null;
}
