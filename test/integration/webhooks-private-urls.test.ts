import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Webhook, WebhookDelivery, WebhookDeliveryPage } from '../support/api-types.js';
import { setupAdmin, startTestController } from '../support/controller.js';
import { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhooks: loopback, link-local and private addresses', function () {
  this.timeout(60_000);
  let dataDir: string;
  let receiver: WebhookReceiver;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-test-'));
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('are refused without --allow-private-webhooks, in every spelling, naming body.url', async () => {
    const t = await startTestController({ dataDir, extraArgs: ['--allow-private-webhooks'] });
    const { admin } = await setupAdmin(t);
    const allowed = await admin.post<Webhook>('/webhooks', { name: 'local', url: receiver.url, events: ['server.crashed'] });
    expect(allowed.status, allowed.text).to.equal(201);
    const named = await admin.post<Webhook>('/webhooks', { name: 'by-name', url: receiver.url.replace('127.0.0.1', 'localhost'), events: ['server.crashed'] });
    expect(named.status, named.text).to.equal(201);
    await t.stop();

    const strict = await startTestController({ dataDir });
    try {
      const cookie = admin.auth.cookie!;
      const client = new ApiClient(strict.baseUrl).withCookie(cookie);
      for (const url of [
        receiver.url, 'http://localhost/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://2130706433/', 'http://10.1.2.3/',
        'http://172.16.0.9/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/', 'http://100.64.0.1/', 'http://0.0.0.0/',
        'https://[fd00::1]/', 'http://[fe80::1]/', 'http://[::ffff:a9fe:a9fe]/',
      ]) {
        expectProblem(await client.post('/webhooks', { name: 'x', url, events: ['server.crashed'] }), 400, 'invalid_request', 'body.url');
      }
      const refusal = await client.post('/webhooks', { name: 'x', url: 'http://127.0.0.1/', events: ['server.crashed'] });
      expect(refusal.text).to.include('--allow-private-webhooks');
      expectProblem(await client.patch(`/webhooks/${allowed.body.id}`, { url: 'http://10.0.0.1/' }), 400, 'invalid_request', 'body.url');

      // Saved while allowed: the address is checked again at every try (a name when it connects), so nothing reaches it now.
      const firstTry = async (hookId: string) => {
        const sent = await client.post<WebhookDelivery>(`/webhooks/${hookId}/test`);
        expect(sent.status, sent.text).to.equal(202);
        return waitFor(async () => {
          const d = (await client.get<WebhookDeliveryPage>(`/webhooks/${hookId}/deliveries`)).body.items.find((x) => x.id === sent.body.id);
          return d && d.attempts > 0 ? d : undefined;
        }, { what: 'the first try' });
      };
      const byAddress = await firstTry(allowed.body.id);
      expect(byAddress).to.include({ state: 'PENDING' });
      expect(byAddress.lastError).to.match(/^refused: 127\.0\.0\.1 is a private address/);
      const byName = await firstTry(named.body.id);
      expect(byName).to.include({ state: 'PENDING' });
      expect(byName.lastError).to.match(/^refused: localhost resolves to a private address/);
      expect(receiver.received).to.have.length(0);
    } finally {
      await strict.stop();
    }
  });
});
