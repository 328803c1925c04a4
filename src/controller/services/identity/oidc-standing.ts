import * as client from 'openid-client';
import { AuditScope } from '../../core/audit-scope.js';
import type { SessionDoc, SessionOidc, UserDoc } from '../../store/records.js';
import type { AuditService } from '../audit/audit.js';
import { nowIso, type ServiceDeps } from '../deps.js';
import type { AccessEvents } from './access-events.js';
import type { OidcAccounts } from './oidc-accounts.js';
import { causeOf, type OidcClients } from './oidc-client.js';
import type { OidcSettings } from './oidc-settings.js';

/** The longest a provider's word stands: sessions and the tokens of its users are confirmed again after this. */
export const maxOidcRecheckSeconds = 15 * 60;
/** The SecretBox purpose of a session's refresh token. */
const refreshPurpose = 'oidc:refresh';

/**
 * Whether the provider still vouches for a user signed in through it. A sign-in's word holds for
 * `recheckSeconds`; then the session's refresh token (kept sealed) is used: the provider's answer
 * sets global administration and team roles from the groups again, and a refusal, an unreachable
 * provider or a session with no refresh token ends the session. An API token of such a user works
 * while the user's standing is that recent, renewed with the refresh token of the user's most
 * recently used session; with none left, the token is refused until the user signs in again.
 */
export class OidcStanding {
  /** One refresh per session at a time: a refresh token is often good for one use only. */
  private readonly refreshing = new Map<string, Promise<boolean>>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly settings: OidcSettings,
    private readonly clients: OidcClients,
    private readonly accounts: OidcAccounts,
    private readonly accessEvents: AccessEvents,
    private readonly audit: AuditService,
    readonly recheckSeconds = maxOidcRecheckSeconds,
  ) {}

  /** What a session made by signing in keeps: the refresh token sealed, confirmed now. */
  sessionFields(refreshToken: string | undefined): SessionOidc {
    return { ...(refreshToken ? { sealedRefreshToken: this.deps.secrets.seal(refreshToken, refreshPurpose) } : {}), checkedAt: nowIso(this.deps) };
  }

  /** When the session must be confirmed with the provider again (ms since the epoch); never for a password session. */
  dueAtMs(session: SessionDoc): number {
    return session.oidc ? Date.parse(session.oidc.checkedAt) + this.recheckSeconds * 1000 : Infinity;
  }

  /** Whether the session still stands, asking the provider when it is due; a session the provider no longer vouches for is ended. */
  confirm(session: SessionDoc): Promise<boolean> {
    if (this.deps.clock.now().getTime() < this.dueAtMs(session)) return Promise.resolve(true);
    let running = this.refreshing.get(session._id);
    if (!running) {
      running = this.refresh(session).finally(() => this.refreshing.delete(session._id));
      this.refreshing.set(session._id, running);
    }
    return running;
  }

  /** The token owner as the provider now sees it, or undefined when no session of the user can renew its standing. */
  async confirmOwner(user: UserDoc): Promise<UserDoc | undefined> {
    const checkedAt = user.identity?.checkedAt;
    if (!user.identity || (checkedAt && this.deps.clock.now().getTime() < Date.parse(checkedAt) + this.recheckSeconds * 1000)) return user;
    const latest = (await this.deps.repos.sessions.find(
      { userId: user._id, 'oidc.sealedRefreshToken': { $exists: true } },
      { sort: { lastSeenAt: -1 }, limit: 1 },
    )).at(0);
    if (!latest || !(await this.confirm(latest))) return undefined;
    return (await this.deps.repos.users.findById(user._id)) ?? undefined;
  }

  private async refresh(session: SessionDoc): Promise<boolean> {
    const audit = new AuditScope('auth.oidc.revalidate', 'user').target(session.userId);
    const refused = await this.renew(session, audit);
    if (refused) {
      await this.deps.repos.sessions.delete({ _id: session._id });
      this.accessEvents.publish({ userId: session.userId, kind: 'session_ended' });
      audit.detail({ sessionEnded: true, reason: refused });
    }
    // Every ended session and every change of rights is audited; a confirmation that changed nothing is not.
    if (refused || refused === undefined && audit.details.rightsChanged === true) {
      await this.audit.recordSystem({ actorKind: 'SYSTEM', action: audit.action, targetKind: audit.targetKind, targetId: audit.targetId, outcome: refused ? 'DENIED' : 'SUCCESS', details: audit.details });
    }
    return !refused;
  }

  /** Asks the provider about the session's user and applies its groups; why it failed, or undefined when it stands. */
  private async renew(session: SessionDoc, audit: AuditScope): Promise<string | undefined> {
    const config = await this.settings.config();
    if (!config) return 'single sign-on is not set up';
    const user = await this.deps.repos.users.findById(session.userId);
    if (!user?.identity || user.identity.issuer !== config.issuer) return 'the user is not one of this provider\'s';
    const sealed = session.oidc?.sealedRefreshToken;
    if (!sealed) return 'the provider issued no refresh token: a fresh sign-in is needed';
    const subject = user.identity.subject;
    let claims: Record<string, unknown> & { sub: string };
    let refreshToken: string;
    try {
      const provider = await this.clients.configFor(config);
      const previous = this.deps.secrets.open(sealed, refreshPurpose);
      const tokens = await client.refreshTokenGrant(provider, previous);
      const idClaims = tokens.claims();
      if (idClaims && idClaims.sub !== subject) throw new Error('the refreshed ID token names another subject');
      const userinfo = provider.serverMetadata().userinfo_endpoint ? await client.fetchUserInfo(provider, tokens.access_token, subject) : {};
      claims = { ...userinfo, ...idClaims, sub: subject };
      refreshToken = tokens.refresh_token ?? previous;
    } catch (e) {
      return causeOf(e);
    }
    if (await this.accounts.refresh(user, config, claims, audit)) audit.detail({ rightsChanged: true });
    await this.deps.repos.sessions.update({ _id: session._id }, { oidc: this.sessionFields(refreshToken) });
    return undefined;
  }
}
