import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from './wait-for.js';

const root = '/sys/fs/cgroup';

/**
 * Removes the cgroups the Agent made for these servers (`<hierarchy>/cairn/<id>` on v1, `cairn/<id>`
 * on v2), and the `cairn` parent when nothing else is under it. A test that kills its games with SIGKILL takes their shims too, which would have removed
 * them; the group of a process just killed stays busy for a moment, so each removal is retried.
 */
export async function removeGameCgroups(serverIds: string[]): Promise<void> {
  const hierarchies = [root, ...(await readdir(root).catch(() => [] as string[])).map((name) => join(root, name))];
  for (const hierarchy of hierarchies) {
    for (const id of serverIds) {
      const dir = join(hierarchy, 'cairn', id);
      await waitFor(async () => {
        try {
          await rmdir(dir);
          return true;
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOENT' || code === 'ENOTDIR') return true;
          if (code === 'EBUSY') return undefined;
          throw e;
        }
      }, { what: `${dir} removed`, timeoutMs: 10_000 });
    }
    // The Agent's parent group goes too once empty; one still holding another Agent's groups stays.
    await rmdir(join(hierarchy, 'cairn')).catch(() => undefined);
  }
}
