import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claimWorld } from './world-version.js';

/** What simcraft keeps of its world in `level.dat` (JSON here, NBT in a real server). */
export interface LevelData {
  version: string;
  /** How many times the world was saved, over every run in this directory. */
  saves: number;
  savedAt: string;
}

/** A region file's size: enough bytes to stand for chunk data that stays put between saves. */
const regionBytes = 64 * 1024;

/**
 * simcraft's world on disk, `world/` in the server's directory: a region file written once and a
 * `level.dat` rewritten at every save (to `level.dat_new`, then renamed, as Minecraft does). Saves
 * run one at a time. Automatic saves stop while saving is turned off (`save-off`); asked-for
 * saves (`save-all`, `stop`) always run.
 */
export class World {
  private saves = 0;
  private automatic = true;
  private chain: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;

  constructor(private readonly version: string, private readonly dir = 'world') {}

  /**
   * Creates the world if it is new and carries on the save count of one that exists; refuses one
   * a newer version saved (WorldTooNewError), and marks it as this version's otherwise.
   */
  async prepare(): Promise<void> {
    await mkdir(join(this.dir, 'region'), { recursive: true });
    await claimWorld(this.dir, this.version);
    const region = join(this.dir, 'region', 'r.0.0.mca');
    const bytes = Buffer.alloc(regionBytes);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) % 251;
    await writeFile(region, bytes, { flag: 'wx' }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    });
    const level = await this.read();
    this.saves = level?.saves ?? 0;
  }

  /** Saves every `intervalMs` while automatic saving is on; 0 never does. */
  autosave(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.automatic) void this.save();
    }, intervalMs);
    this.timer.unref();
  }

  /** Turns automatic saving off; false when it already was. */
  disable(): boolean {
    const was = this.automatic;
    this.automatic = false;
    return was;
  }

  /** Turns automatic saving on; false when it already was. */
  enable(): boolean {
    const was = this.automatic;
    this.automatic = true;
    return !was;
  }

  /** Writes `level.dat`; resolves once it is in place. */
  save(): Promise<void> {
    const step = this.chain.then(async () => {
      const level: LevelData = { version: this.version, saves: this.saves + 1, savedAt: new Date().toISOString() };
      const path = join(this.dir, 'level.dat');
      await writeFile(`${path}_new`, JSON.stringify(level) + '\n');
      await rename(`${path}_new`, path);
      this.saves = level.saves;
    });
    this.chain = step.catch(() => undefined);
    return step;
  }

  private async read(): Promise<LevelData | undefined> {
    try {
      return JSON.parse(await readFile(join(this.dir, 'level.dat'), 'utf8')) as LevelData;
    } catch {
      return undefined;
    }
  }
}
