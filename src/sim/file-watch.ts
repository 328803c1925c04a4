import { unwatchFile, watch, watchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ConsoleLog } from './console-log.js';

const settleMs = 10;
const pollMs = 1000;

/**
 * Calls `onChange` (debounced) when the file may have changed: fs.watch on its directory, so a
 * rename over the file is seen; stat polling, for filesystems where fs.watch says nothing; and
 * SIGHUP, for whoever wants a reload now. Returns a function that stops watching.
 */
export function watchConfigFile(path: string, log: ConsoleLog, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, settleMs);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(path), (_event, name) => {
      if (name === null || name === basename(path)) changed();
    });
    watcher.on('error', (error) => {
      log.warn(`Watching ${path} failed (${error.message}); polling it instead`);
      watcher?.close();
    });
  } catch (error) {
    log.warn(`Cannot watch ${path} (${(error as Error).message}); polling it instead`);
  }
  watchFile(path, { interval: pollMs }, changed);
  process.on('SIGHUP', changed);
  return () => {
    clearTimeout(timer);
    watcher?.close();
    unwatchFile(path, changed);
    process.off('SIGHUP', changed);
  };
}
