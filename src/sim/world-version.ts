import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareGameVersions } from '../shared/game-versions.js';

/** A world saved by a newer version than the one running: Minecraft cannot open it, and neither does simcraft. */
export class WorldTooNewError extends Error {
  constructor(readonly savedBy: string) {
    super(`Failed to load world: saved by newer version ${savedBy}`);
    this.name = 'WorldTooNewError';
  }
}

const fileOf = (dir: string) => join(dir, 'version.txt');

/**
 * The world's format: `version.txt` names the version that last ran it. Opening it with an older
 * version is refused (as Minecraft refuses a world a newer release saved), so an update that goes
 * back a version fails the way a real one would; otherwise the running version is written.
 */
export async function claimWorld(dir: string, version: string): Promise<void> {
  const saved = (await readFile(fileOf(dir), 'utf8').catch((e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  })).trim();
  if (saved !== '' && compareGameVersions(version, saved) < 0) throw new WorldTooNewError(saved);
  await writeFile(fileOf(dir), `${version}\n`);
}
