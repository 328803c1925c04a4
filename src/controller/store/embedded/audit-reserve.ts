import { open, unlink } from 'node:fs/promises';
import { asStoreError, isNoSpace } from '../../core/store-full.js';

/** Room for a few hundred audit events of the largest kind. */
const reserveBytes = 1024 * 1024;

/**
 * Disk set aside for audit events, so a change made just before the disk filled still gets its
 * event: an audited request starts only while the room is held (`hold`), and an event that then
 * does not fit frees it (`release`) and is written again. Without the room, requests are refused
 * before they change anything. A file of zeros written through (not a sparse one), so the space is
 * really taken, and given back by removing it.
 */
export class AuditReserve {
  private held = false;

  constructor(private readonly file: string) {}

  /** Throws a StoreFullError when the room cannot be set aside (the disk is full). */
  async hold(): Promise<void> {
    if (this.held) return;
    try {
      const handle = await open(this.file, 'w', 0o600);
      try {
        await handle.writeFile(Buffer.alloc(reserveBytes));
        await handle.datasync();
      } finally {
        await handle.close();
      }
      this.held = true;
    } catch (e) {
      // A part written would hold space no event can use.
      if (isNoSpace(e)) await unlink(this.file).catch(() => undefined);
      throw asStoreError(e);
    }
  }

  /** Gives the room back to the store; false when it was not held. */
  async release(): Promise<boolean> {
    if (!this.held) return false;
    this.held = false;
    await unlink(this.file);
    return true;
  }
}
