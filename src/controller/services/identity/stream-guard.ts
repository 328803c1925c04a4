import type { Logger } from '../../../shared/logger.js';
import type { Caller } from '../../core/caller.js';
import type { Repositories } from '../../store/repositories.js';
import type { AccessEvents } from './access-events.js';
import type { ScheduleTimers } from '../../core/schedule-timers.js';
import type { SessionService } from './sessions.js';
import type { TokenService } from './tokens.js';
import { callerUser } from './caller-user.js';

/** How often an open stream re-checks its caller unasked: the backstop for sessions and tokens that expire (no signal marks that). */
export const streamRecheckMs = 60_000;

/** A stream that can keep back what it would deliver while its caller's access is re-checked. */
export interface HoldingStream {
  hold(): void;
  /** The re-check passed: deliver what was kept back, and go on. */
  release(): void;
  /** The caller lost its access: drop what was kept back and end with `access_revoked`. */
  revoke(): void;
}

/**
 * Keeps long-lived streams within their caller's access. A stream registers its caller and a
 * re-check, which runs at once (access may have changed between the request's authentication
 * and now), on every access change of that user the services signal, and every minute.
 */
export class StreamGuards {
  constructor(
    private readonly events: AccessEvents,
    private readonly sessions: SessionService,
    private readonly tokens: TokenService,
    private readonly repos: Repositories,
    private readonly timers: ScheduleTimers,
    private readonly logger: Logger,
    private readonly everyMs = streamRecheckMs,
  ) {}

  /** `recheck(signalled)`: true at registration and on a signal, false on the timer. Returns the stop. */
  watch(caller: Caller, recheck: (signalled: boolean) => void): () => void {
    let handle: unknown;
    const arm = () => {
      handle = this.timers.setTimeout(() => {
        arm();
        recheck(false);
      }, this.everyMs);
    };
    arm();
    const unsubscribe = this.events.subscribe(caller.user._id, () => recheck(true));
    recheck(true);
    return () => {
      unsubscribe();
      this.timers.clearTimeout(handle);
    };
  }

  /** The caller as it stands now (its user re-read: rights change), or undefined once its session or token ended or its user is gone. */
  async current(caller: Caller): Promise<Caller | undefined> {
    const live = caller.tokenId !== undefined
      ? await this.tokens.isLive(caller.tokenId)
      : caller.sessionHash !== undefined && (await this.sessions.isLive(caller.sessionHash));
    if (!live) return undefined;
    const user = await this.repos.users.findById(caller.user._id);
    return user ? { ...caller, user: callerUser(user) } : undefined;
  }

  /**
   * Guards a stream that can hold its deliveries: on a signal it holds them until the re-check
   * answers, so nothing printed after a revocation goes out. Returns the stop.
   */
  keep(caller: Caller, stream: HoldingStream, may: (current: Caller) => Promise<boolean>): () => void {
    const guard = new HeldStreamGuard(stream, async () => {
      try {
        const current = await this.current(caller);
        return current !== undefined && (await may(current));
      } catch (err) {
        this.logger.warn({ err, userId: caller.user._id }, 'stream access re-check failed; the stream ends');
        return false;
      }
    });
    guard.unwatch = this.watch(caller, (signalled) => guard.recheck(signalled));
    return () => guard.stop();
  }
}

/**
 * Re-checks run one at a time; a signal during one runs another after it, so the answer that
 * releases the stream is never older than the last signal. A re-check that fails (the store)
 * ends the stream: closed is the safe side, and the client may reconnect.
 */
class HeldStreamGuard {
  unwatch?: () => void;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(private readonly stream: HoldingStream, private readonly allowed: () => Promise<boolean>) {}

  recheck(signalled: boolean): void {
    if (this.stopped) return;
    if (signalled) this.stream.hold();
    if (this.running) this.again = true;
    else void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.unwatch?.();
  }

  private async run(): Promise<void> {
    this.running = true;
    let ok: boolean;
    do {
      this.again = false;
      ok = await this.allowed();
    } while (ok && this.askedAgain());
    this.running = false;
    if (this.stopped) return;
    if (ok) {
      this.stream.release();
      return;
    }
    this.stop();
    this.stream.revoke();
  }

  /** Read through a call: a signal may arrive while a check is awaited. */
  private askedAgain(): boolean {
    return this.again && !this.stopped;
  }
}
