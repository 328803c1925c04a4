/** The session cookie. `__Host-` requires Secure and Path=/ and forbids Domain, pinning it to this origin. */
export const sessionCookieName = '__Host-cairn_session';

export function sessionCookie(sessionId: string, maxAgeSeconds: number): string {
  return `${sessionCookieName}=${sessionId}; Path=/; Max-Age=${maxAgeSeconds}; Secure; HttpOnly; SameSite=Strict`;
}

export const clearedSessionCookie = () => `${sessionCookieName}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Strict`;

const sessionCookiePrefix = `${sessionCookieName}=`;

const sessionIdOf = (value: string) => (value.length > 0 && value.length <= 200 ? value : undefined);

export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // What nearly every request sends (the cookie is the origin's only one): read without splitting.
  if (header.startsWith(sessionCookiePrefix) && !header.includes(';')) return sessionIdOf(header.slice(sessionCookiePrefix.length).trim());
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === sessionCookieName) {
      return sessionIdOf(part.slice(eq + 1).trim());
    }
  }
  return undefined;
}
