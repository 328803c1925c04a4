import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for each test of the enclosing `describe`, removed after it: read it through the returned function. */
export function tempDirPerTest(prefix: string): () => string {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** Directories made for one `describe` (its Controllers' and Agents' data), removed together after it. */
export class TempDirs {
  private readonly made: string[] = [];

  async make(prefix: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.made.push(dir);
    return dir;
  }

  async removeAll(): Promise<void> {
    for (const dir of this.made.splice(0)) await rm(dir, { recursive: true, force: true });
  }
}
