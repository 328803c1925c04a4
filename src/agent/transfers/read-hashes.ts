import { createHash, type Hash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { hashKeyOf } from '../../shared/backup/scan.js';
import type { FileChunk } from '../../shared/link/messages.js';

interface Running {
  hash: Hash;
  /** Where the next range must start for the hash to go on. */
  next: number;
  /** `hashKeyOf` the file when its first range was read. */
  key: string;
}

/** One ranged read being followed: every chunk in order, then the file's stats around the read. */
export interface FollowedRange {
  chunk(chunk: FileChunk): void;
  done(last: FileChunk, opened: BigIntStats, after: BigIntStats): void;
}

/**
 * The sha256 of a snapshot's files as a Controller reads them whole, range after range from the
 * start (a first backup, which the Controller stores under the hash of what arrived, or a relayed
 * copy): learnt for the next scan, so the next backup reads only what changed since. A file read
 * out of order, or written to between its ranges, teaches nothing.
 */
export class ReadHashes {
  private readonly running = new Map<string, Running>();

  constructor(private readonly learn: (path: string, key: string, sha256: string) => void) {}

  follow(path: string, offset: number): FollowedRange {
    const before = this.running.get(path);
    this.running.delete(path);
    let state: Running | undefined = offset === 0 ? { hash: createHash('sha256'), next: 0, key: '' } : before?.next === offset ? before : undefined;
    return {
      chunk: (chunk) => {
        if (state && chunk.offset !== state.next) state = undefined;
        if (!state) return;
        state.hash.update(chunk.data);
        state.next += chunk.data.length;
      },
      done: (last, opened, after) => {
        const key = hashKeyOf(opened);
        if (!state || hashKeyOf(after) !== key || (state.key !== '' && state.key !== key)) return;
        state.key = key;
        if (!last.eof) this.running.set(path, state);
        else if (state.next === Number(opened.size)) this.learn(path, key, state.hash.digest('hex'));
      },
    };
  }
}
