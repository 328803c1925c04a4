import { AttemptLimiter } from '../../security/attempt-limiter.js';
import * as client from 'openid-client';
import type { AuditScope } from '../../core/audit-scope.js';
import { conflict, notFound } from '../../core/errors.js';
import { SecretBoxError } from '../../security/secret-box.js';
import type { UserDoc } from '../../store/records.js';
import type { ServiceDeps } from '../deps.js';
import type { OidcAccounts } from './oidc-accounts.js';
import { causeOf, type OidcClients } from './oidc-client.js';
import type { OidcConfig, OidcSettings } from './oidc-settings.js';
import type { OidcStanding } from './oidc-standing.js';
import type { SessionService } from './sessions.js';

/** How long a browser may take at the provider between leaving and coming back. */
export const oidcFlowSeconds = 10 * 60;
const flowPurpose = 'oidc:flow';

/** Why a sign-in with the provider failed, as `/sign-in?error=` names it. */
export type OidcFailure = 'oidc_state' | 'oidc_denied' | 'oidc_invalid_token';

/** What the login step hands the callback, through the browser. */
interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

export type OidcOutcome = { user: UserDoc; sessionId: string } | { failure: OidcFailure };

/**
 * The authorization-code flow with PKCE (S256), `state` and `nonce`. What the callback must check
 * travels in a cookie sealed with the SecretBox rather than in this process's memory: the browser
 * may come back to another Controller behind the same address, or after a restart, and nothing
 * has to be bounded or swept. Sealing keeps the PKCE verifier unreadable and the values unforgeable.
 */
export class OidcLogin {
  /**
   * Failed callbacks per client address (20 in 15 minutes): each is audited, so a loop of forged
   * callbacks must not grow the audit log without end.
   */
  private readonly failures = new AttemptLimiter(20, 15 * 60);

  constructor(
    private readonly deps: ServiceDeps,
    private readonly settings: OidcSettings,
    private readonly clients: OidcClients,
    private readonly accounts: OidcAccounts,
    private readonly sessions: SessionService,
    private readonly standing: OidcStanding,
    /** `--public-url`: the Controller's address as browsers reach it, never taken from a request's Host. */
    private readonly publicUrl?: string,
  ) {}

  /** Where to send the browser, and the sealed flow for its cookie. */
  async start(): Promise<{ url: string; flow: string }> {
    const config = await this.settings.config();
    if (!config) throw notFound('single sign-on setting');
    const redirectUri = config.redirectUri ?? (this.publicUrl && `${this.publicUrl}/api/v1/auth/oidc/callback`);
    if (!redirectUri) throw conflict('Single sign-on needs the address browsers reach this Controller at: start it with --public-url https://<address>, or set redirectUri in the single sign-on setting.');
    const provider = await this.clients.configFor(config);
    const flow: Flow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      redirectUri,
      expiresAt: this.deps.clock.now().getTime() + oidcFlowSeconds * 1000,
    };
    const url = client.buildAuthorizationUrl(provider, {
      redirect_uri: flow.redirectUri,
      scope: config.scopes.join(' '),
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: url.href, flow: this.deps.secrets.seal(JSON.stringify(flow), flowPurpose) };
  }

  /** Checks the provider's answer against the flow, exchanges the code and signs the user in. */
  async finish(sealedFlow: string | undefined, query: URLSearchParams, audit: AuditScope, clientAddress: string): Promise<OidcOutcome> {
    // Past the limit the callback is refused with 429 before anything is read: counted, not audited.
    // The slot is taken before the code exchange and kept by a failure, so a burst gets no more than the limit.
    const slot = this.failures.reserve(clientAddress);
    const fail = (failure: OidcFailure, reason: string): OidcOutcome => {
      audit.outcome = 'DENIED';
      audit.detail({ error: failure, reason });
      return { failure };
    };
    const config = await this.settings.config();
    if (!config) return fail('oidc_state', 'single sign-on is not set up');
    const flow = sealedFlow ? this.openFlow(sealedFlow) : undefined;
    if (!flow) return fail('oidc_state', sealedFlow ? 'the sign-in cookie does not open' : 'no sign-in cookie (expired, or not started here)');
    if (this.deps.clock.now().getTime() >= flow.expiresAt) return fail('oidc_state', 'the sign-in took longer than 10 minutes');
    if (query.get('state') !== flow.state) return fail('oidc_state', 'the state does not match this browser\'s sign-in');
    const error = query.get('error');
    if (error) return fail('oidc_denied', `the provider answered ${error.slice(0, 100)}`);
    let answer: Awaited<ReturnType<OidcLogin['exchange']>>;
    try {
      answer = await this.exchange(config, flow, query);
    } catch (e) {
      return fail('oidc_invalid_token', causeOf(e));
    }
    slot.release();
    const user = await this.accounts.signIn(config, answer.claims, audit);
    const { sessionId } = await this.sessions.create(user._id, this.standing.sessionFields(answer.refreshToken));
    return { user, sessionId };
  }

  /**
   * The token request and the ID token's checks (signature from the provider's keys, issuer,
   * audience, expiry, nonce), then userinfo's claims under the ID token's: providers such as
   * Keycloak put groups in either. The refresh token, when the provider issues one, is what keeps
   * the session past its first re-validation.
   */
  private async exchange(config: OidcConfig, flow: Flow, query: URLSearchParams) {
    const provider = await this.clients.configFor(config);
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = query.toString();
    const tokens = await client.authorizationCodeGrant(provider, currentUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('the token response has no ID token');
    const userinfo = provider.serverMetadata().userinfo_endpoint
      ? await client.fetchUserInfo(provider, tokens.access_token, idClaims.sub)
      : {};
    return { claims: { ...userinfo, ...idClaims } as Record<string, unknown> & { sub: string }, refreshToken: tokens.refresh_token };
  }

  private openFlow(sealed: string): Flow | undefined {
    try {
      return JSON.parse(this.deps.secrets.open(sealed, flowPurpose)) as Flow;
    } catch (e) {
      if (e instanceof SecretBoxError || e instanceof SyntaxError) return undefined;
      throw e;
    }
  }
}
