import { expect } from 'chai';
import { startTestController, type TestController } from '../support/controller.js';

/** Five wrong passwords for one account from one address (the tightest sign-in throttle), then one more from `forwardedFor`. */
async function afterFiveFailures(t: TestController, failingFrom: string, thenFrom: string): Promise<number> {
  const login = (xff: string) => fetch(`${t.baseUrl}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
    body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
  });
  for (let i = 0; i < 5; i++) expect((await login(failingFrom)).status).to.equal(401);
  return (await login(thenFrom)).status;
}

describe('--trust-proxy: whose X-Forwarded-For names the client the throttles count', function () {
  this.timeout(60_000);
  const started: TestController[] = [];
  const controller = async (args: string[]) => {
    const t = await startTestController({ extraArgs: args });
    started.push(t);
    return t;
  };
  after(async () => {
    for (const t of started) await t.dispose();
  });

  it('without it, X-Forwarded-For is ignored: the socket\'s address is throttled whatever the header says', async () => {
    const t = await controller([]);
    expect(await afterFiveFailures(t, '198.51.100.1', '198.51.100.2')).to.equal(429);
  });

  it('with it, the throttle keys on the right-most address that is not a trusted proxy', async () => {
    const t = await controller(['--trust-proxy', '127.0.0.1/32', '--trust-proxy', '10.0.0.0/8']);
    expect(await afterFiveFailures(t, '198.51.100.1', '198.51.100.2'), 'another client behind the proxy').to.equal(401);
    expect(await afterFiveFailures(t, '198.51.100.3', '198.51.100.3, 10.0.0.7'), 'the same client through a second trusted hop').to.equal(429);
    expect(await afterFiveFailures(t, '198.51.100.4', '203.0.113.9, 198.51.100.4'), 'an address the client wrote in front proves nothing').to.equal(429);
  });

  it('refuses a value that is not an address or a range', async () => {
    let error: unknown;
    try {
      await controller(['--trust-proxy', '10.0.0.0/33']);
    } catch (e) {
      error = e;
    }
    expect(String(error)).to.include('--trust-proxy "10.0.0.0/33" is not an IP address or a CIDR range');
  });
});
