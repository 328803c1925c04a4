import { newSessionId, sha256 } from '../../security/secrets.js';
import type { Caller } from '../../core/caller.js';
import type { Shared } from '../../store/collection.js';
import type { SessionDoc, SessionOidc, UserDoc } from '../../store/records.js';
import type { AccessEvents } from './access-events.js';
import { callerUser } from './caller-user.js';
import { nowIso, type ServiceDeps } from '../deps.js';

export interface SessionPolicy {
  /** A session ends this long after sign-in, however active. */
  absoluteSeconds: number;
  /** A session ends after this long without a request. */
  idleSeconds: number;
}

export const defaultSessionPolicy: SessionPolicy = { absoluteSeconds: 7 * 24 * 3600, idleSeconds: 12 * 3600 };

/** Whether a single sign-on session still stands at its provider (oidc-standing.ts). */
export interface SessionStanding {
  /** When the session must be confirmed again (ms since the epoch); Infinity for a password session. */
  dueAtMs(session: SessionDoc): number;
  /** Confirms it with the provider when due; false once it has been ended. */
  confirm(session: SessionDoc): Promise<boolean>;
}

/** Activity is written at most once a minute, so a busy client does not turn every read into a write. */
const touchEverySeconds = 60;

/** Server-side sessions: the random id lives only in the cookie; the store keeps its SHA-256. */
export class SessionService {
  /** Per cached session document: its caller and the times that end its quiet use (see `remember`). */
  private readonly known = new WeakMap<Shared<SessionDoc>, { caller: Caller; user: Shared<UserDoc>; expiresAtMs: number; lastSeenAtMs: number }>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly access: AccessEvents,
    private readonly policy: SessionPolicy = defaultSessionPolicy,
    private readonly standing?: SessionStanding,
  ) {}

  /** `oidc` for a session made by signing in with the provider; absent for a password session. */
  async create(userId: string, oidc?: SessionOidc): Promise<{ sessionId: string; session: SessionDoc }> {
    const sessionId = newSessionId();
    const now = this.deps.clock.now();
    const session: SessionDoc = {
      _id: sha256(sessionId),
      userId,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.policy.absoluteSeconds * 1000).toISOString(),
      ...(oidc ? { oidc } : {}),
    };
    await this.deps.repos.sessions.insert(session);
    return { sessionId, session };
  }

  /**
   * The caller holding the session, or undefined when it is unknown, expired or idle too long (then
   * it is deleted). Answered at once, without a promise, when the session and its user are in the
   * store's memory and there is nothing to write: what nearly every signed-in request finds.
   */
  resolve(sessionId: string): Caller | undefined | Promise<Caller | undefined> {
    const hash = sha256(sessionId);
    const session = this.deps.repos.sessions.cachedById?.(hash);
    const user = session && this.deps.repos.users.cachedById?.(session.userId);
    if (session && user) {
      const known = this.known.get(session);
      const now = this.deps.clock.now().getTime();
      if (known?.user === user && now < known.expiresAtMs && now < known.lastSeenAtMs + touchEverySeconds * 1000) return known.caller;
    }
    return this.read(hash);
  }

  private async read(hash: string): Promise<Caller | undefined> {
    const found = await this.deps.repos.sessions.findById(hash);
    if (!found) return undefined;
    const now = this.deps.clock.now().getTime();
    if (this.expired(found, now)) {
      await this.end(hash, found.userId);
      return undefined;
    }
    const session = await this.confirmed(found);
    if (!session) return undefined;
    const user = await this.deps.repos.users.findById(session.userId);
    if (!user) return undefined;
    if (now - Date.parse(session.lastSeenAt) >= touchEverySeconds * 1000) {
      await this.deps.repos.sessions.update({ _id: hash }, { lastSeenAt: nowIso(this.deps) });
      return { kind: 'USER', user: callerUser(user), sessionHash: hash };
    }
    const caller: Caller = { kind: 'USER', user: callerUser(user), sessionHash: hash };
    this.remember(hash, caller);
    return caller;
  }

  /**
   * Keeps the caller for the session and user the store now holds in memory, with the times that
   * end its quiet use: its expiry (absolute or idle) and the next activity to write. The cached
   * documents are new objects after any write, so a changed session or user is never matched.
   */
  private remember(hash: string, caller: Caller): void {
    const session = this.deps.repos.sessions.cachedById?.(hash);
    const user = session && this.deps.repos.users.cachedById?.(session.userId);
    if (!session || !user) return;
    const lastSeenAtMs = Date.parse(session.lastSeenAt);
    const expiresAtMs = Math.min(Date.parse(session.expiresAt), lastSeenAtMs + this.policy.idleSeconds * 1000, this.standing?.dueAtMs(session) ?? Infinity);
    this.known.set(session, { caller: { ...caller, user: callerUser(user) }, user, expiresAtMs, lastSeenAtMs });
  }

  /** Whether the session still lets its holder in; a read only (no activity recorded): what open streams re-check. */
  async isLive(sessionHash: string): Promise<boolean> {
    const session = await this.deps.repos.sessions.findById(sessionHash);
    return session !== null && !this.expired(session, this.deps.clock.now().getTime()) && (await this.confirmed(session)) !== undefined;
  }

  /** The session as it stands after its provider confirmed it when due (read again: the confirmation rewrote it); undefined once ended. */
  private async confirmed(session: SessionDoc): Promise<SessionDoc | undefined> {
    if (!this.standing || this.deps.clock.now().getTime() < this.standing.dueAtMs(session)) return session;
    if (!(await this.standing.confirm(session))) return undefined;
    return (await this.deps.repos.sessions.findById(session._id)) ?? undefined;
  }

  async end(sessionHash: string, userId: string): Promise<void> {
    await this.deps.repos.sessions.delete({ _id: sessionHash });
    this.access.publish({ userId, kind: 'session_ended' });
  }

  /** Ends every session of the user but one (after a password change, the changer stays signed in). */
  async endAllFor(userId: string, except?: string): Promise<void> {
    await this.deps.repos.sessions.delete(except ? { userId, _id: { $ne: except } } : { userId });
    this.access.publish({ userId, kind: 'session_ended' });
  }

  private expired(session: SessionDoc, now: number): boolean {
    return now >= Date.parse(session.expiresAt) || now >= Date.parse(session.lastSeenAt) + this.policy.idleSeconds * 1000;
  }
}
