import { open } from 'node:fs/promises';

/** What loading a store file had to drop to open it: the file, and what was lost, in words. */
export interface StoreRepair {
  file: string;
  dropped: string;
}

/**
 * A process that dies mid-append can leave a half-written last line. Every embedded file is
 * newline-terminated JSON lines, so cutting the file back to its last newline restores the
 * last complete write; anything else that is corrupt is left for the loader to refuse.
 * Returns how many bytes were cut.
 */
export async function cutTornTail(path: string): Promise<number> {
  let handle;
  try {
    handle = await open(path, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return 0;
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const idx = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (idx >= 0) {
        const keep = start + idx + 1;
        if (keep === size) return 0;
        await handle.truncate(keep);
        return size - keep;
      }
      end = start;
    }
    await handle.truncate(0);
    return size;
  } finally {
    await handle.close();
  }
}
