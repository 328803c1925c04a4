import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { asStoreError, StoreFullError } from '../../core/store-full.js';
import type { AppendOutcome } from './batched-append.js';

/**
 * Whether the embedded store can write, as its appends last found. A failed append makes it
 * unwritable. After a full disk only a probe makes it writable again: `check` writes, syncs and
 * removes a 64 KiB file at most every `probeEveryMs`, so readiness sees freed space without waiting
 * for a client's write, and a small append that still fitted in the last block does not report a
 * disk with no room as fine. After any other failure the next append that succeeds is enough.
 */
export class WriteHealth {
  private failed?: { error: unknown; probedAt: number };

  constructor(private readonly dir: string, private readonly probeEveryMs = 2000, private readonly now = () => Date.now()) {}

  readonly note = (outcome: AppendOutcome): void => {
    if (!outcome.ok) this.failed = { error: asStoreError(outcome.error), probedAt: this.now() };
    else if (!(this.failed?.error instanceof StoreFullError)) this.failed = undefined;
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
    await handle.writeFile(Buffer.alloc(64 * 1024));
    await handle.datasync();
  } finally {
    await handle.close();
    await unlink(file).catch(() => undefined);
  }
}
