import * as client from 'openid-client';

/** What reaching a provider needs: its issuer and this Controller's client there. */
export interface OidcClientIdentity {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const discoverySeconds = 10;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Plain HTTP only to a provider on this machine (a local test or development provider): anywhere
 * else the ID token's signing keys and the client secret would cross the network readable.
 */
const insecureAllowed = (issuer: URL) => issuer.protocol === 'http:' && loopbackHosts.has(issuer.hostname);

/**
 * The provider's discovered metadata with this client's credentials, as openid-client's
 * Configuration. Kept per issuer, client and secret, so a sign-in does not discover again and a
 * changed setting discovers afresh.
 */
export class OidcClients {
  private readonly known = new Map<string, Promise<client.Configuration>>();

  /** Discovers anew (the setting being saved must be checked now); throws what discovery met. */
  async discover(id: OidcClientIdentity): Promise<client.Configuration> {
    const issuer = new URL(id.issuer);
    if (issuer.protocol === 'http:' && !insecureAllowed(issuer)) throw new Error('the issuer must use https (http only for a loopback address)');
    const config = await client.discovery(issuer, id.clientId, undefined, client.ClientSecretBasic(id.clientSecret), {
      timeout: discoverySeconds,
      // The ID token's signature is checked against the provider's JWKS even though it comes
      // straight from the token endpoint, where OpenID Connect would let TLS alone vouch for it.
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- marked so only to stand out; used for loopback issuers alone
      execute: [...(insecureAllowed(issuer) ? [client.allowInsecureRequests] : []), client.enableNonRepudiationChecks],
    });
    this.known.clear();
    this.known.set(keyOf(id), Promise.resolve(config));
    return config;
  }

  /** The configuration for a saved setting, discovered once; a failed discovery is tried again next time. */
  configFor(id: OidcClientIdentity): Promise<client.Configuration> {
    const key = keyOf(id);
    let found = this.known.get(key);
    if (!found) {
      found = this.discover(id);
      found.catch(() => this.known.delete(key));
      this.known.set(key, found);
    }
    return found;
  }
}

const keyOf = (id: OidcClientIdentity) => JSON.stringify([id.issuer, id.clientId, id.clientSecret]);

/** The error's message, short and on one line, for an audit detail or a problem's detail. */
export const causeOf = (e: unknown) => {
  const cause = e instanceof Error ? (e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message) : String(e);
  return cause.replace(/\s+/g, ' ').slice(0, 300);
};
