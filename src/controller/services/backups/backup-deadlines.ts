/**
 * How long the Controller waits on a Node for backup work. A local backup hashes and compresses
 * the whole world on the Node (minutes for tens of GiB); pruning a store and stopping a server
 * for a restore are shorter.
 */
export const backupDeadlines = {
  localBackupMs: 60 * 60_000,
  pruneMs: 10 * 60_000,
  stopMs: 3 * 60_000,
  /** How long a backup waits for its Node's Agent to (re)connect, e.g. right after a Controller start. */
  nodeReadyMs: 2 * 60_000,
} as const;
