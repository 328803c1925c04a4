import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { FsBlobStore } from '../../shared/backup/fs-blob-store.js';
import { KeyedMutex } from '../../shared/keyed-mutex.js';
import { AgentError } from '../errors.js';

const within = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The content-addressed stores on this Node (destinations of kind NODE_DIRECTORY). Work on one
 * store runs one at a time, so a prune's garbage collection never takes blobs a backup has
 * written but not yet named in its manifest, nor blobs a restore is reading.
 */
export class LocalStores {
  private readonly locks = new KeyedMutex();
  /** Where servers and stages live: a store there would back itself up, or vanish with a server. */
  private readonly reserved: string[];

  constructor(dataDir: string) {
    this.reserved = [join(dataDir, 'servers'), join(dataDir, 'stages')];
  }

  /** Runs `work` on the store at `destinationPath` (an absolute directory, not under a server's or a stage's files). */
  async use<T>(destinationPath: string, work: (store: FsBlobStore, path: string) => Promise<T>): Promise<T> {
    if (!isAbsolute(destinationPath) || destinationPath.includes('\0')) throw new AgentError('INVALID_PATH', 'destination_path: give an absolute directory.');
    const path = normalize(destinationPath);
    if (this.reserved.some((dir) => within(dir, path))) throw new AgentError('INVALID_PATH', 'destination_path: inside the Agent\'s server or stage files.');
    return this.locks.run(path, () => work(new FsBlobStore(path), path));
  }
}
