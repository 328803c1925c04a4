import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../runtime/state-dir.js';
import type { LastStatus } from './sleeping-status.js';

/**
 * What the Agent keeps of a sleeping server beside its root (`sleeping.json`), so that a restarted
 * Agent answers the port again at once, before it hears from its Controller, and its server stays
 * asleep rather than being started by the restart.
 */
export interface SleepMarker {
  since: string;
  port: number;
  /** The address the sleeper binds (the game's), undefined: every interface. */
  host?: string;
  status: LastStatus;
  wakeOnJoin: boolean;
  /** The desired wake nonce the server fell asleep under: a newer one (an explicit start) wakes it. */
  wakeNonce: number;
}

const markerName = 'sleeping.json';
export const sleepMarkerFile = (home: string) => join(home, markerName);

export async function readSleepMarker(home: string): Promise<SleepMarker | undefined> {
  try {
    const marker = JSON.parse(await readFile(sleepMarkerFile(home), 'utf8')) as SleepMarker;
    return Number.isInteger(marker.port) && marker.port > 0 && typeof marker.since === 'string' ? marker : undefined;
  } catch {
    return undefined;
  }
}

export const writeSleepMarker = (home: string, marker: SleepMarker) => writeFileAtomic(sleepMarkerFile(home), JSON.stringify(marker));

export const removeSleepMarker = (home: string) => rm(sleepMarkerFile(home), { force: true });

/** Every sleeping server under `<data>/servers`, by id. */
export async function sleepMarkersIn(serversDir: string): Promise<Map<string, SleepMarker>> {
  const found = new Map<string, SleepMarker>();
  const ids = await readdir(serversDir).catch(() => [] as string[]);
  for (const id of ids) {
    const marker = await readSleepMarker(join(serversDir, id));
    if (marker) found.set(id, marker);
  }
  return found;
}
