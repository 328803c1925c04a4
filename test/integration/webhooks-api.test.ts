import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../support/http.js';
import type { AuditEventPage, Team, Webhook, WebhookDelivery, WebhookDeliveryPage, WebhookEventBody, WebhookPage } from '../support/api-types.js';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import { expectProblem } from '../support/problems.js';
import { waitFor } from '../support/wait-for.js';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver.js';

const secret = 'a-secret-of-at-least-16-chars';

async function everythingUnder(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(join(entry.parentPath, entry.name), 'latin1').catch(() => ''));
  }
  return parts.join('\n');
}

describe('webhooks: the API and deliveries to a local receiver', function () {
  this.timeout(60_000);
  let t: TestController;
  let admin: ApiClient;
  let teamId: string;
  let receiver: WebhookReceiver;

  const create = async (body: Record<string, unknown>) => {
    const res = await admin.post<Webhook>('/webhooks', { name: 'hook', url: receiver.url, events: ['server.crashed'], ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const test = async (hookId: string) => {
    const res = await admin.post<WebhookDelivery>(`/webhooks/${hookId}/test`);
    expect(res.status, res.text).to.equal(202);
    return res.body;
  };
  const deliveryOf = async (hookId: string, deliveryId: string) =>
    (await admin.get<WebhookDeliveryPage>(`/webhooks/${hookId}/deliveries`)).body.items.find((d) => d.id === deliveryId);
  const settled = (hookId: string, deliveryId: string, timeoutMs = 20_000) =>
    waitFor(async () => {
      const d = await deliveryOf(hookId, deliveryId);
      return d && d.state !== 'PENDING' ? d : undefined;
    }, { timeoutMs, what: `delivery ${deliveryId} to end` });

  before(async () => {
    t = await startTestController({ extraArgs: ['--allow-private-webhooks'] });
    ({ admin } = await setupAdmin(t));
    teamId = (await admin.post<Team>('/teams', { name: 'Ops' })).body.id;
    receiver = await WebhookReceiver.start();
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 200 });
  });
  after(async () => {
    await receiver.close();
    await t.dispose();
  });

  it('Send test: a signed POST with Cairn-Event and Cairn-Delivery, listed DELIVERED with its answer', async () => {
    const hook = await create({ secret });
    expect(hook).to.include({ hasSecret: true, format: 'json' }).and.not.have.property('secret');
    const delivery = await test(hook.id);
    expect(delivery).to.include({ event: 'webhook.test', state: 'PENDING', attempts: 0 });
    const done = await settled(hook.id, delivery.id);
    expect(done).to.include({ state: 'DELIVERED', attempts: 1, lastStatus: 200 }).and.not.have.property('lastError');
    const [got] = receiver.of(delivery.id);
    expect(got.headers).to.include({ 'cairn-event': 'webhook.test', 'content-type': 'application/json' });
    expect(signatureValid(got, secret)).to.equal(true);
    expect(signatureValid(got, 'another-secret-16-chars')).to.equal(false);
    const body = JSON.parse(got.body) as WebhookEventBody;
    expect(body).to.include({ event: 'webhook.test' });
    expect(Date.parse(body.occurredAt)).to.be.at.most(Date.now());
  });

  it('an answer of 500 is tried again after 1 s with the same Cairn-Delivery, then delivered', async () => {
    const hook = await create({ format: 'discord' });
    receiver.answer = (request) => ({ status: receiver.of(String(request.headers['cairn-delivery'])).length === 1 ? 500 : 200 });
    const delivery = await test(hook.id);
    const done = await settled(hook.id, delivery.id);
    expect(done).to.include({ state: 'DELIVERED', attempts: 2, lastStatus: 200 });
    const tries = receiver.of(delivery.id);
    expect(tries).to.have.length(2);
    expect(tries[1].at - tries[0].at).to.be.within(900, 4000);
    expect(tries[0].headers).to.not.have.property('cairn-signature');
    expect(JSON.parse(tries[1].body)).to.have.property('embeds').with.length(1);
  });

  it('a 429 waits its Retry-After (2 s, where the plan would wait 1 s)', async () => {
    const hook = await create({ format: 'slack' });
    receiver.answer = (request) => (receiver.of(String(request.headers['cairn-delivery'])).length === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 204 });
    const delivery = await test(hook.id);
    expect(await settled(hook.id, delivery.id)).to.include({ state: 'DELIVERED', attempts: 2, lastStatus: 204 });
    const tries = receiver.of(delivery.id);
    expect(tries[1].at - tries[0].at).to.be.at.least(1900);
    expect(JSON.parse(tries[0].body)).to.have.property('text').that.includes('Test delivery');
  });

  it('an endpoint that hangs is given up on after 10 s and tried again; other webhooks are not held back meanwhile', async function () {
    this.timeout(40_000);
    const slow = await create({ name: 'slow', url: `${receiver.url}?slow` });
    const quick = await create({ name: 'quick' });
    // The first try may arrive before Send test has answered: the slow one is known by its URL.
    receiver.answer = (request) => (request.path.endsWith('?slow') && receiver.received.filter((r) => r.path.endsWith('?slow')).length === 1 ? 'hang' : { status: 200 });
    const slowDelivery = await test(slow.id);
    await waitFor(() => receiver.of(slowDelivery.id).length === 1, { what: 'the first try of the slow one' });
    const quickDelivery = await test(quick.id);
    expect(await settled(quick.id, quickDelivery.id, 3000)).to.include({ state: 'DELIVERED' });
    const done = await settled(slow.id, slowDelivery.id, 20_000);
    expect(done).to.include({ state: 'DELIVERED', attempts: 2 });
    const tries = receiver.of(slowDelivery.id);
    expect(tries[1].at - tries[0].at).to.be.within(10_500, 14_000);
  });

  it('refuses a URL that is not http(s), Node events on a team webhook, and a bad event name, naming the field', async () => {
    expectProblem(await admin.post('/webhooks', { name: 'x', url: 'ftp://example.com/', events: ['server.crashed'] }), 400, 'invalid_request', 'body.url');
    expectProblem(await admin.post('/webhooks', { name: 'x', url: 'not a url', events: ['server.crashed'] }), 400, 'invalid_request', 'body.url');
    expectProblem(await admin.post('/webhooks', { name: 'x', url: receiver.url, events: ['node.unreachable'], teamId }), 400, 'invalid_request', 'body.events');
    expectProblem(await admin.post('/webhooks', { name: 'x', url: receiver.url, events: ['server.exploded'] }), 400, 'invalid_request', 'body.events');
  });

  it('never returns, audits or stores the secret in the clear; PATCH replaces or removes it', async () => {
    const hook = await create({ name: 'secretive', secret });
    const patched = await admin.patch<Webhook>(`/webhooks/${hook.id}`, { secret: 'another-secret-16-chars' });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.hasSecret).to.equal(true);
    const removed = await admin.patch<Webhook>(`/webhooks/${hook.id}`, { secret: null, name: 'plain' });
    expect(removed.body).to.include({ hasSecret: false, name: 'plain' });
    const texts = [
      (await admin.get(`/webhooks/${hook.id}`)).text, (await admin.get('/webhooks')).text,
      (await admin.get<AuditEventPage>('/audit-events?targetKind=webhook&limit=200')).text,
    ];
    for (const text of texts) expect(text).to.not.include(secret).and.not.include('another-secret-16-chars');
    const audit = await admin.get<AuditEventPage>(`/audit-events?targetId=${hook.id}`);
    expect(audit.body.items.map((e) => e.action)).to.include.members(['webhook.create', 'webhook.update']);
    expect(await everythingUnder(t.dataDir)).to.not.include(secret);
    expect((await admin.delete(`/webhooks/${hook.id}`)).status).to.equal(204);
    expectProblem(await admin.get(`/webhooks/${hook.id}`), 404, 'not_found');
  });

  it('a team member needs servers.update in the team; fleet-wide webhooks are for global administrators', async () => {
    const reader = await admin.post<{ id: string }>('/roles', { name: 'hook-reader', permissions: ['servers.read'] });
    const editor = await admin.post<{ id: string }>('/roles', { name: 'hook-editor', permissions: ['servers.read', 'servers.update'] });
    const nora = await createReadyUser(t, admin, 'nora');
    const ed = await createReadyUser(t, admin, 'ed');
    expect((await admin.put(`/teams/${teamId}/members/${nora.userId}`, { roleIds: [reader.body.id] })).status).to.equal(200);
    expect((await admin.put(`/teams/${teamId}/members/${ed.userId}`, { roleIds: [editor.body.id] })).status).to.equal(200);
    const body = { name: 'team-hook', url: receiver.url, events: ['server.crashed'], teamId };
    expectProblem(await nora.client.post('/webhooks', body), 403, 'forbidden');
    expectProblem(await ed.client.post('/webhooks', { ...body, teamId: undefined }), 403, 'forbidden');
    const made = await ed.client.post<Webhook>('/webhooks', body);
    expect(made.status, made.text).to.equal(201);
    expectProblem(await nora.client.get(`/webhooks/${made.body.id}`), 403, 'forbidden');
    expectProblem(await nora.client.post(`/webhooks/${made.body.id}/test`), 403, 'forbidden');
    const fleetWide = await create({ name: 'fleet' });
    expectProblem(await ed.client.get(`/webhooks/${fleetWide.id}`), 404, 'not_found');
    const listed = await ed.client.get<WebhookPage>('/webhooks');
    expect(listed.body.items.map((w) => w.id)).to.deep.equal([made.body.id]);
    expect((await nora.client.get<WebhookPage>('/webhooks')).body.items).to.deep.equal([]);
    expect((await ed.client.post(`/webhooks/${made.body.id}/test`)).status).to.equal(202);
  });

  it('a deleted team takes its webhooks and their deliveries with it; fleet-wide ones stay', async () => {
    const gone = (await admin.post<Team>('/teams', { name: 'Short-lived' })).body.id;
    const teamHook = await create({ name: 'short-lived', teamId: gone });
    const delivered = await settled(teamHook.id, (await test(teamHook.id)).id);
    expect(delivered.state).to.equal('DELIVERED');
    const fleetWide = await create({ name: 'stays' });
    expect((await admin.delete(`/teams/${gone}`)).status).to.equal(204);
    // The team's webhook goes first and its deliveries just after, in the background of the team's deletion.
    await waitFor(async () => (await admin.get(`/webhooks/${teamHook.id}`)).status === 404
      && (await t.controller.services.deps.repos.webhookDeliveries.find({ webhookId: teamHook.id })).length === 0,
    { what: 'the team\'s webhook and its deliveries removed' });
    expect((await admin.get(`/webhooks/${fleetWide.id}`)).status).to.equal(200);
  });

  it('lists a webhook\'s deliveries newest first, paged', async () => {
    const hook = await create({ name: 'paged' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await test(hook.id)).id);
    const first = await admin.get<WebhookDeliveryPage>(`/webhooks/${hook.id}/deliveries?limit=2`);
    expect(first.body.items.map((d) => d.id)).to.deep.equal([ids[2], ids[1]]);
    const rest = await admin.get<WebhookDeliveryPage>(`/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.body.nextCursor!}`);
    expect(rest.body.items.map((d) => d.id)).to.deep.equal([ids[0]]);
    expect(rest.body.nextCursor).to.equal(undefined);
  });

  it('keeps the last 100 finished deliveries of a webhook, and counts them in the metrics', async () => {
    const hook = await create({ name: 'busy' });
    const ids: string[] = [];
    for (let i = 0; i < 103; i++) ids.push((await test(hook.id)).id);
    await waitFor(() => receiver.of(ids[102]).length === 1, { what: 'the last delivery' });
    const listed = await waitFor(async () => {
      const page = await admin.get<WebhookDeliveryPage>(`/webhooks/${hook.id}/deliveries?limit=200`);
      return page.body.items.length === 100 && page.body.items.every((d) => d.state === 'DELIVERED') ? page.body.items : undefined;
    }, { what: '100 DELIVERED deliveries kept' });
    expect(listed[0].id).to.equal(ids[102]);
    expect(listed[99].id).to.equal(ids[3]);
    const metrics = await t.api.get('/metrics');
    const delivered = /^cairn_webhook_deliveries_total\{state="DELIVERED"\} (\d+)$/m.exec(metrics.text);
    expect(Number(delivered?.[1])).to.be.at.least(103);
    expect(metrics.text).to.match(/^cairn_webhook_deliveries_total\{state="FAILED"\} 0$/m);
  });
});
