import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const attemptFile = 'enrollment-attempt.json';

/** A fresh enrollment attempt id: 256 random bits. */
export const newEnrollmentAttemptId = () => randomBytes(32).toString('base64url');

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The enrollment attempt id in the Agent's data dir, drawn once per token and written before the
 * first Enroll call: a retry, or an Agent restarted after its answer was lost, presents the same
 * id, which the Controller accepts again for the same token. Keyed by the token's SHA-256 (never
 * the token itself), so a new token gets a new attempt.
 */
export class EnrollmentAttemptStore {
  constructor(private readonly dataDir: string) {}

  get path(): string {
    return join(this.dataDir, attemptFile);
  }

  async idFor(token: string): Promise<string> {
    const hash = tokenHash(token);
    const stored = await this.load();
    if (stored?.tokenHash === hash) return stored.attemptId;
    const attemptId = newEnrollmentAttemptId();
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, JSON.stringify({ tokenHash: hash, attemptId }), { mode: 0o600 });
    await rename(temp, this.path);
    return attemptId;
  }

  /** Once the credential is stored the attempt has nothing left to retry. */
  async forget(): Promise<void> {
    await rm(this.path, { force: true });
  }

  private async load(): Promise<{ tokenHash: string; attemptId: string } | undefined> {
    let parsed: { tokenHash?: unknown; attemptId?: unknown };
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8')) as typeof parsed;
    } catch (e) {
      // A missing or torn file only costs a new attempt id (a lost answer then needs a new token).
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return undefined;
      throw e;
    }
    if (typeof parsed.tokenHash !== 'string' || typeof parsed.attemptId !== 'string') return undefined;
    return { tokenHash: parsed.tokenHash, attemptId: parsed.attemptId };
  }
}
