/**
 * The single sign-on flow cookie: the sealed state, nonce and PKCE verifier between the login
 * redirect and the provider's callback. SameSite=Lax, unlike the session cookie: the callback is a
 * top-level navigation coming from the provider's site, which a Strict cookie would not follow.
 */
const oidcFlowCookieName = '__Host-cairn_oidc';

export const oidcFlowCookie = (sealed: string, maxAgeSeconds: number) =>
  `${oidcFlowCookieName}=${sealed}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=Lax`;

export const clearedOidcFlowCookie = () => `${oidcFlowCookieName}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax`;

export function readOidcFlowCookie(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === oidcFlowCookieName) {
      const value = part.slice(eq + 1).trim();
      return value.length > 0 && value.length <= 4096 ? value : undefined;
    }
  }
  return undefined;
}
