import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Webhook, WebhookDelivery, WebhookDeliveryPage } from '../support/api-types.js';
import { ControllerProcess, setUpAdminOf } from '../support/controller-process.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

describe('webhooks: deliveries survive a Controller killed mid-try (real processes)', function () {
  this.timeout(90_000);
  let dataDir: string;
  let receiver: WebhookReceiver;
  let controller: ControllerProcess | undefined;
  const env = { CAIRN_ALLOW_PRIVATE_WEBHOOKS: '1' };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-test-'));
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await controller?.kill();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a delivery stored before its first try is sent again by the next Controller, with the same Cairn-Delivery', async () => {
    controller = await ControllerProcess.start(dataDir, 0, { env });
    const { cookie } = await setUpAdminOf(controller, dataDir);
    const admin = controller.api.withCookie(cookie);
    const hook = await admin.post<Webhook>('/webhooks', { name: 'pager', url: receiver.url, events: ['server.crashed'], secret: 'sixteen-chars-or-more' });
    expect(hook.status, hook.text).to.equal(201);
    // The first try never gets an answer: the Controller is killed while it waits.
    receiver.answer = () => 'hang';
    const sent = await admin.post<WebhookDelivery>(`/webhooks/${hook.body.id}/test`);
    expect(sent.status, sent.text).to.equal(202);
    await waitFor(() => receiver.of(sent.body.id).length === 1, { what: 'the first try' });
    await controller.kill('SIGKILL');

    receiver.answer = () => ({ status: 200 });
    controller = await ControllerProcess.start(dataDir, 0, { env });
    const again = controller.api.withCookie(cookie);
    const done = await waitFor(async () => {
      const d = (await again.get<WebhookDeliveryPage>(`/webhooks/${hook.body.id}/deliveries`)).body.items.find((x) => x.id === sent.body.id);
      return d?.state === 'DELIVERED' ? d : undefined;
    }, { timeoutMs: 15_000, what: 'the delivery to be DELIVERED after the restart' });
    expect(done).to.include({ attempts: 1, lastStatus: 200 });
    const tries = receiver.of(sent.body.id);
    expect(tries).to.have.length(2);
    expect(tries[1].headers['cairn-event']).to.equal('webhook.test');
    expect(JSON.parse(tries[1].body)).to.deep.equal(JSON.parse(tries[0].body));
  });
});
