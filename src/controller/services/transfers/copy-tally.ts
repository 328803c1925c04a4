import { Listeners } from '../../../shared/listeners.js';
import type { CopyPath } from '../../schemas/servers.js';

/** The bytes each copy moved and its path, for the metrics (`cairn_migration_copy_bytes_total`). */
export class CopyTally {
  private readonly listeners = new Listeners<[CopyPath, number]>();

  record(path: CopyPath, bytes: number): void {
    this.listeners.emit(path, bytes);
  }

  subscribe(listener: (path: CopyPath, bytes: number) => void): () => void {
    return this.listeners.add(listener);
  }
}
