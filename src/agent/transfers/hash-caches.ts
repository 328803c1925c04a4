import { HashCache } from '../../shared/backup/scan.js';

/**
 * Each server's file hashes from its last scan, so the next snapshot or backup hashes only the
 * files that changed. Every scan starts a cache of its own from the last one and keeps only the
 * files it saw: a deleted world's hashes do not stay in memory.
 */
export class HashCaches {
  private readonly last = new Map<string, HashCache>();

  async scan<R>(serverId: string, work: (cache: HashCache) => Promise<R>): Promise<R> {
    const cache = new HashCache(this.last.get(serverId));
    try {
      return await work(cache);
    } finally {
      cache.detach();
      this.last.set(serverId, cache);
    }
  }

  /**
   * Records a hash learnt outside a scan (a file hashed as it was sent), for the server's next
   * scan to take over; `key` is what `hashKeyOf` said of the file before and after it was read.
   */
  remember(serverId: string, path: string, key: string, sha256: string): void {
    this.last.get(serverId)?.set(path, key, sha256);
  }
}
