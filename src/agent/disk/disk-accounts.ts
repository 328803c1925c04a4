import type { Condition } from '../../shared/link/messages.js';
import { treeBytes } from './tree-walker.js';

/** The contract's bound: a server's tree is measured again at least this often. */
export const maxMeasureAgeMs = 60_000;
/** A walk waits this many times its last duration before the next, so a huge tree costs at most a tenth of the time. */
const walkCostFactor = 10;
/**
 * A quiet server's next walk falls due at a random point of the minute's last quarter. Walks due
 * at a fixed minute fell into step: a burst of them shares the Agent's I/O threads, so they all end,
 * and fall due again, together (the fleet bench's Agent processes walked in 5-second bursts at up
 * to 90% of a core, with little in between).
 */
const quietJitter = 0.25;

export const diskQuotaExceeded = 'DISK_QUOTA_EXCEEDED';

interface Account {
  bytes: number;
  atMs: number;
  durationMs: number;
  /** How long after this walk a quiet server's tree is due again (at most the contract's minute). */
  quietGapMs: number;
  /** When the tree was first seen past its limit (the condition's `since`); unset while within it. */
  overSince?: string;
}

/** How this Node holds disk limits (Node status.isolation.disk). */
export type DiskMode = 'quota' | 'accounting';

export interface DiskAccountsOptions {
  mode: DiskMode;
  /** The shortest gap between two walks of one tree (the Agent's status interval). */
  minGapMs: number;
  now?: () => number;
  /** In [0, 1): where in the last quarter of the minute a quiet server's next walk falls. */
  random?: () => number;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * What each server's files hold, measured by walking its root: at most every `minGapMs` (longer
 * for a tree whose walk is slow), at least every minute, and at once after a write through the
 * API; a quiet server's only every 45 to 60 s. One walk per server at a time; callers asking meanwhile share it.
 */
export class DiskAccounts {
  private readonly accounts = new Map<string, Account>();
  private readonly walks = new Map<string, Promise<number>>();

  constructor(private readonly options: DiskAccountsOptions) {}

  get mode(): DiskMode {
    return this.options.mode;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Bytes the server's files held at the last walk; undefined before the first. */
  bytes(serverId: string): number | undefined {
    return this.accounts.get(serverId)?.bytes;
  }

  /**
   * Whether the server's tree is to be walked again now. A `quiet` server (no process of its own
   * runs, nothing is being installed) changes only through the Agent, which walks it after each
   * of its own writes: its tree is walked again only at the contract's bound.
   */
  due(serverId: string, quiet = false): boolean {
    const account = this.accounts.get(serverId);
    if (!account) return true;
    const gap = quiet ? account.quietGapMs : Math.min(maxMeasureAgeMs, Math.max(this.options.minGapMs, account.durationMs * walkCostFactor));
    return this.now() - account.atMs >= gap;
  }

  /** Walks the server's root; true when what it holds changed since the last walk. */
  async measure(serverId: string, root: string): Promise<boolean> {
    const before = this.accounts.get(serverId)?.bytes;
    let walk = this.walks.get(serverId);
    if (!walk) {
      const startedMs = this.now();
      walk = treeBytes(root).then((bytes) => {
        const previous = this.accounts.get(serverId);
        const quietGapMs = maxMeasureAgeMs * (1 - quietJitter * (this.options.random ?? Math.random)());
        this.accounts.set(serverId, { ...previous, bytes, atMs: this.now(), durationMs: this.now() - startedMs, quietGapMs });
        return bytes;
      }).finally(() => this.walks.delete(serverId));
      this.walks.set(serverId, walk);
    }
    return (await walk) !== before;
  }

  /** A write the Agent made itself (an upload) grew the files by `bytes`: counted until the next walk tells. */
  grew(serverId: string, bytes: number): void {
    const account = this.accounts.get(serverId);
    if (account) account.bytes += bytes;
  }

  forget(serverId: string): void {
    this.accounts.delete(serverId);
  }

  /**
   * The bytes the server may still add under `limitBytes`, by the last walk; undefined when it has
   * no limit or was never measured (a write then goes ahead and the walk after it tells).
   */
  room(serverId: string, limitBytes: number | undefined): number | undefined {
    const bytes = this.bytes(serverId);
    if (!limitBytes || bytes === undefined) return undefined;
    return limitBytes - bytes;
  }

  /** DISK_QUOTA_EXCEEDED while the last walk found the files past `limitBytes`, naming use and limit. */
  condition(serverId: string, limitBytes: number | undefined): Condition | undefined {
    const account = this.accounts.get(serverId);
    if (!account || !limitBytes || account.bytes <= limitBytes) {
      if (account) account.overSince = undefined;
      return undefined;
    }
    account.overSince ??= new Date(this.now()).toISOString();
    return {
      id: `${serverId}:disk-quota-exceeded`,
      reason: diskQuotaExceeded,
      message: `The server's files hold ${mib(account.bytes)} (${account.bytes} bytes), past its disk limit of ${mib(limitBytes)} `
        + `(resources.diskBytes = ${limitBytes}); uploads and plugin installs are refused until they hold less.`,
      since: account.overSince,
    };
  }
}
