import type { ServiceDeps } from '../deps.js';
import type { AuditService } from './audit.js';

/** One refused sign-in, as the audit log is told of it. */
export interface LoginFailure {
  /** The account's id when the name matched one; refusals naming no account share one key per address. */
  userId?: string;
  /** As typed (kept for a known account; for an unknown one, a few distinct names are sampled). */
  username: string;
  clientAddress: string;
  /** `invalid_credentials` (401) or `too_many_attempts` (429). */
  error: string;
}

interface Window {
  /** When the window began (the clock's ms): its first event was written then. */
  start: number;
  /** Failures since the last event written for this key. */
  pending: number;
  errors: Record<string, number>;
  last: LoginFailure;
  usernames: Set<string>;
}

const unknownAccount = '(unknown)';
const sampledNames = 5;

/**
 * Aggregates refused sign-ins so a flood cannot grow the audit log: at most one `auth.login`
 * DENIED event per account and client address per minute. The first failure for a key writes an
 * event at once (`details.count: 1`) and opens a one-minute window; failures inside it are only
 * counted. When the window has passed, the next failure, or else the flush timer (every 10 s),
 * writes one event with `details.count` = the failures since the last event, and a new window
 * begins then; a key with nothing pending at its window's end is forgotten. `stop()` (at
 * shutdown) writes whatever is pending. Refusals naming no existing account are keyed by address
 * alone (`details.username` absent, `details.usernames` samples up to five typed names).
 */
export class LoginFailureLog {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ServiceDeps, private readonly audit: AuditService, private readonly windowMs = 60_000) {}

  async failed(failure: LoginFailure): Promise<void> {
    const key = `${failure.userId ?? unknownAccount}\n${failure.clientAddress}`;
    const now = this.deps.clock.now().getTime();
    const window = this.windows.get(key);
    if (!window) {
      const fresh: Window = { start: now, pending: 1, errors: { [failure.error]: 1 }, last: failure, usernames: new Set([failure.username]) };
      this.windows.set(key, fresh);
      this.timer ??= setInterval(() => void this.flush(false), 10_000).unref();
      await this.write(fresh, now);
      return;
    }
    window.pending++;
    window.errors[failure.error] = (window.errors[failure.error] ?? 0) + 1;
    window.last = failure;
    if (window.usernames.size < sampledNames) window.usernames.add(failure.username);
    if (now - window.start >= this.windowMs) await this.write(window, now);
  }

  /** Writes the pending count of every window that has ended (or of all, at shutdown). */
  async flush(all: boolean): Promise<void> {
    const now = this.deps.clock.now().getTime();
    for (const [key, window] of this.windows) {
      const ended = now - window.start >= this.windowMs;
      if (window.pending > 0 && (ended || all)) await this.write(window, now);
      else if (ended) this.windows.delete(key);
    }
    if (this.windows.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush(true);
    this.windows.clear();
  }

  private async write(window: Window, now: number): Promise<void> {
    const { last } = window;
    const details: Record<string, unknown> = {
      clientAddress: last.clientAddress,
      count: window.pending,
      errors: window.errors,
      error: last.error,
    };
    if (last.userId) details.username = last.username;
    else details.usernames = [...window.usernames];
    window.start = now;
    window.pending = 0;
    window.errors = {};
    window.usernames = new Set();
    await this.audit.recordEvent({
      actorKind: 'USER', ...(last.userId ? { actorUserId: last.userId } : {}),
      action: 'auth.login', targetKind: 'user', targetId: last.userId ?? '', outcome: 'DENIED', details,
    });
  }
}
