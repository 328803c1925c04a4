import { readFile, statfs } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import type { AgentCondition } from './start-refusal.js';

/** The reason of a server whose state could not be written for want of space, and of any other write failure. */
export const noSpaceReason = 'NO_SPACE';
export const stateWriteReason = 'STATE_WRITE_FAILED';

const noSpaceCodes = new Set(['ENOSPC', 'EDQUOT']);

export const recordFailureId = (serverId: string) => `${serverId}:state-write`;

/** /proc/mounts escapes blanks, tabs, newlines and backslashes in octal. */
const unescapeMount = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** The mount point and type of the file system holding `path`: the longest mount point containing it. */
export async function fileSystemOf(path: string, mounts = '/proc/self/mounts'): Promise<{ mountPoint: string; type: string } | undefined> {
  const text = await readFile(mounts, 'utf8').catch(() => '');
  let best: { mountPoint: string; type: string } | undefined;
  for (const line of text.split('\n')) {
    const [, point, type] = line.split(' ');
    if (!point || !type) continue;
    const mountPoint = unescapeMount(point);
    const contains = mountPoint === '/' || path === mountPoint || path.startsWith(mountPoint + sep);
    if (contains && mountPoint.length >= (best?.mountPoint.length ?? 0)) best = { mountPoint, type };
  }
  return best;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * The server's condition when `step` could not write `path`: for a full disk it names the file
 * system (mount point, type, what is free of it), so the operator knows where to make room.
 */
export async function recordFailureCondition(serverId: string, step: string, path: string, error: unknown, since: Date): Promise<AgentCondition> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const head = `${step}: the game's exit could not be recorded in ${path}`;
  if (!code || !noSpaceCodes.has(code)) {
    return { id: recordFailureId(serverId), reason: stateWriteReason, message: `${head} (${(error as Error | undefined)?.message ?? String(error)}). The game has exited.`, since: since.toISOString() };
  }
  const fs = await fileSystemOf(path);
  const room = await statfs(dirname(path)).catch(() => undefined);
  const where = fs ? `the file system mounted at ${fs.mountPoint} (${fs.type})` : 'its file system';
  const free = room ? `, ${mib(room.bavail * room.bsize)} free of ${mib(room.blocks * room.bsize)}` : '';
  return {
    id: recordFailureId(serverId),
    reason: noSpaceReason,
    message: `${head}: ${where} is full (${code}${free}). The game has exited; make room there before the next start.`,
    since: since.toISOString(),
  };
}
