import { expect } from 'chai';
import { request } from 'node:http';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

const publicUrl = 'https://cairn.example.com';

/** GET with a Host header of the caller's choosing, as anyone can send (fetch would put the real one). */
function loginWithHost(baseUrl: string, host: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    request(`${baseUrl}/api/v1/auth/oidc/login`, { headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    }).on('error', reject).end();
  });
}

describe('single sign-on: the callback address comes from --public-url, never from the Host header', function () {
  this.timeout(60_000);
  let t: TestController;
  let op: TestOidcProvider;

  before(async () => {
    t = await startTestController({ extraArgs: ['--public-url', `${publicUrl}/`] });
    const { admin } = await setupAdmin(t);
    op = await startOidcProvider([`${publicUrl}/api/v1/auth/oidc/callback`]);
    const put = await admin.put('/auth/oidc', { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, displayName: 'Example SSO' });
    expect(put.status, put.text).to.equal(200);
  });
  after(async () => {
    await op.close();
    await t.dispose();
  });

  it('sends the provider <public URL>/api/v1/auth/oidc/callback whatever Host the request names', async () => {
    for (const host of [new URL(t.baseUrl).host, 'evil.example', 'evil.example:8080']) {
      const res = await loginWithHost(t.baseUrl, host);
      expect(res.status, host).to.equal(302);
      expect(new URL(res.location!).searchParams.get('redirect_uri'), host).to.equal(`${publicUrl}/api/v1/auth/oidc/callback`);
    }
  });
});
