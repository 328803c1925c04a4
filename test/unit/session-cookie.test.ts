import { expect } from 'chai';
import { readSessionCookie, sessionCookieName } from '../../src/controller/http/cookies.js';

describe('reading the session cookie', () => {
  const id = 'svJ5insYa-539WtLI0JTIFlqx5M2HoV8XZ6uGu-hLSg';

  it('reads it alone, among other cookies, and with spaces around', () => {
    expect(readSessionCookie(`${sessionCookieName}=${id}`)).to.equal(id);
    expect(readSessionCookie(`${sessionCookieName}=${id} `)).to.equal(id);
    expect(readSessionCookie(`theme=dark; ${sessionCookieName}=${id}; lang=en`)).to.equal(id);
    expect(readSessionCookie(`${sessionCookieName}=${id};theme=dark`)).to.equal(id);
    expect(readSessionCookie(` ${sessionCookieName} = ${id}`)).to.equal(id);
  });

  it('finds none in no header, another cookie, a longer name, an empty value or one past 200 characters', () => {
    expect(readSessionCookie(undefined)).to.equal(undefined);
    expect(readSessionCookie('')).to.equal(undefined);
    expect(readSessionCookie('theme=dark')).to.equal(undefined);
    expect(readSessionCookie(`${sessionCookieName}x=${id}`)).to.equal(undefined);
    expect(readSessionCookie(`${sessionCookieName}=`)).to.equal(undefined);
    expect(readSessionCookie(`${sessionCookieName}=${'a'.repeat(201)}`)).to.equal(undefined);
    expect(readSessionCookie(`lang=en; ${sessionCookieName}=${'a'.repeat(201)}`)).to.equal(undefined);
  });
});
