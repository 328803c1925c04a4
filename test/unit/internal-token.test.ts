import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { InternalTokens } from '../../src/controller/security/internal-token.js';

describe('internal tokens between Controllers', () => {
  const key = randomBytes(32);
  const a = new InternalTokens('controller-a', () => Promise.resolve(key));
  const b = new InternalTokens('controller-b', () => Promise.resolve(key));

  it('lets the Controller a token names take it, for its purpose only', async () => {
    const token = await a.sign('controller-b', 'link-request');
    expect(await b.verify(token, 'link-request')).to.equal(true);
    expect(await b.verify(token, 'console'), 'another purpose').to.equal(false);
    expect(await a.verify(token, 'link-request'), 'another Controller').to.equal(false);
  });

  it('refuses a token signed with another key, an expired one, and one that is no token', async () => {
    const stranger = new InternalTokens('controller-a', () => Promise.resolve(randomBytes(32)));
    expect(await b.verify(await stranger.sign('controller-b', 'console'), 'console')).to.equal(false);
    const expired = await new SignJWT({ purpose: 'console' }).setProtectedHeader({ alg: 'HS256' }).setIssuer('controller-a').setAudience('controller-b')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120).setExpirationTime(Math.floor(Date.now() / 1000) - 60).sign(key);
    expect(await b.verify(expired, 'console')).to.equal(false);
    expect(await b.verify('not-a-token', 'console')).to.equal(false);
    const unsigned = await new SignJWT({ purpose: 'console' }).setProtectedHeader({ alg: 'HS512' }).setAudience('controller-b').setIssuer('x').setExpirationTime('30s').sign(randomBytes(64));
    expect(await b.verify(unsigned, 'console'), 'another algorithm').to.equal(false);
  });

  it('reads the key again after a failed read, and once after a good one', async () => {
    let reads = 0;
    const flaky = new InternalTokens('controller-a', () => (++reads === 1 ? Promise.reject(new Error('store down')) : Promise.resolve(key)));
    let failed = false;
    await flaky.sign('controller-b', 'console').catch(() => (failed = true));
    expect(failed).to.equal(true);
    await flaky.sign('controller-b', 'console');
    await flaky.sign('controller-b', 'console');
    expect(reads).to.equal(2);
  });
});
