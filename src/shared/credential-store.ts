import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredCredential {
  nodeId: string;
  credential: string;
}

export const credentialFile = 'node-credential.json';

/** The Node credential in the Agent's data dir: private to the Agent's user (0600), replaced atomically. */
export class CredentialStore {
  constructor(private readonly dataDir: string) {}

  get path(): string {
    return join(this.dataDir, credentialFile);
  }

  async load(): Promise<StoredCredential | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const parsed = JSON.parse(text) as Partial<StoredCredential>;
    if (typeof parsed.nodeId !== 'string' || typeof parsed.credential !== 'string') throw new Error(`${this.path} is not a Node credential file`);
    // Tighten a file someone loosened by hand.
    await chmod(this.path, 0o600);
    return { nodeId: parsed.nodeId, credential: parsed.credential };
  }

  async save(value: StoredCredential): Promise<void> {
    const temp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, JSON.stringify(value), { mode: 0o600 });
    await rename(temp, this.path);
  }
}
