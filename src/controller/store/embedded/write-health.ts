import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { asStoreError } from '../../core/store-full.js';
import type { AppendOutcome } from './batched-append.js';

/**
 * Whether the embedded store can write, as its appends last found. A failed append makes it
 * unwritable until an append succeeds again; while nothing is written, `check` probes with a small
 * file (written, synced, removed) at most every `probeEveryMs`, so readiness sees freed space
 * without waiting for a client's write.
 */
export class WriteHealth {
  private failed?: { error: unknown; probedAt: number };

  constructor(private readonly dir: string, private readonly probeEveryMs = 2000, private readonly now = () => Date.now()) {}

  readonly note = (outcome: AppendOutcome): void => {
    if (outcome.ok) this.failed = undefined;
    else this.failed = { error: asStoreError(outcome.error), probedAt: this.now() };
  };

  /** Throws the last append's error (a StoreFullError for a full disk) while the store cannot write. */
  async check(): Promise<void> {
    const failed = this.failed;
    if (!failed) return;
    if (this.now() - failed.probedAt >= this.probeEveryMs) {
      failed.probedAt = this.now();
      try {
        await probe(join(this.dir, '.write-probe'));
        if (this.failed === failed) this.failed = undefined;
        return;
      } catch (e) {
        failed.error = asStoreError(e);
      }
    }
    throw failed.error;
  }
}

async function probe(file: string): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    await handle.writeFile('probe\n');
    await handle.datasync();
  } finally {
    await handle.close();
    await unlink(file).catch(() => undefined);
  }
}
