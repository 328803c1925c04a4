import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const silenceFile = 'link-silence.json';

/**
 * The silence limit the Controllers last gave (Welcome.silence_limit_ms), kept in the Agent's data
 * dir: an Agent that starts again holds its first stream to it too, so a frozen Controller it
 * dials first is left within half a lease instead of gRPC keepalive's 35 s. A missing or torn file
 * is no limit until the next Welcome.
 */
export class SilenceMemory {
  constructor(private readonly dataDir: string) {}

  get path(): string {
    return join(this.dataDir, silenceFile);
  }

  async load(): Promise<number> {
    try {
      const { silenceLimitMs } = JSON.parse(await readFile(this.path, 'utf8')) as { silenceLimitMs?: unknown };
      return typeof silenceLimitMs === 'number' && Number.isSafeInteger(silenceLimitMs) && silenceLimitMs > 0 ? silenceLimitMs : 0;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return 0;
      throw e;
    }
  }

  async save(silenceLimitMs: number): Promise<void> {
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, JSON.stringify({ silenceLimitMs }), { mode: 0o600 });
    await rename(temp, this.path);
  }
}
