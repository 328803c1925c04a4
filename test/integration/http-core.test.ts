import { expect } from 'chai';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AuditEventPage, CreatedApiToken, Network, OpenApiDocument, Problem, TeamPage, User } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

describe('HTTP core', () => {
  let t: TestController;
  let admin: ApiClient;
  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('unknown paths answer 404 problem+json, inside and outside /api/v1', async () => {
    expectProblem(await admin.get('/no-such-thing'), 404, 'not_found');
    expectProblem(await t.api.get('/api/v2/me'), 404, 'not_found');
    expectProblem(await admin.request('POST', '/nothing/here', { body: {} }), 404, 'not_found');
  });

  it('a known path with another method answers 405 with Allow', async () => {
    const res = await admin.request('PUT', '/me');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).to.include('GET');
    const users = await admin.request('PUT', '/users');
    expectProblem(users, 405, 'method_not_allowed');
    expect((users.headers.get('allow') ?? '').split(/,\s*/)).to.include.members(['GET', 'POST']);
    const health = await t.api.request('POST', '/healthz');
    expectProblem(health, 405, 'method_not_allowed');
    expect(health.headers.get('allow')).to.include('GET');
  });

  it('a JSON body over 1 MiB answers 413 too_large', async () => {
    const res = await admin.post('/teams', { name: 'big', padding: 'x'.repeat(1024 * 1024 + 10) });
    expectProblem(res, 413, 'too_large');
    // A body just under the limit is read (and then refused for its unknown field).
    expectProblem(await admin.post('/teams', { name: 'big', padding: 'x'.repeat(1000 * 1000) }), 400, 'invalid_request', 'body.padding');
    const events = await admin.get<AuditEventPage>('/audit-events?action=team.create&outcome=FAILED');
    expect(events.body.items[0].details).to.include({ error: 'invalid_request' });
    expect(events.body.items[1].details).to.include({ error: 'too_large' });
  });

  it('a body with another Content-Type than JSON answers 400 invalid_request', async () => {
    expectProblem(await admin.post('/teams', undefined, { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded' }), 400, 'invalid_request', 'Content-Type');
    expectProblem(await admin.post('/teams', undefined, { rawBody: '{"name":"x"}', contentType: 'text/plain' }), 400, 'invalid_request', 'Content-Type');
    expectProblem(await admin.post('/teams', undefined, { rawBody: '{"name":"x"}', contentType: 'application/octet-stream' }), 400, 'invalid_request');
    expect((await admin.get<TeamPage>('/teams')).body.items).to.deep.equal([]);
  });

  it('malformed JSON and non-object JSON answer 400 invalid_request', async () => {
    expectProblem(await admin.post('/teams', undefined, { rawBody: '{"name":', contentType: 'application/json' }), 400, 'invalid_request');
    expectProblem(await admin.post('/teams', undefined, { rawBody: '[1,2]', contentType: 'application/json' }), 400, 'invalid_request', 'body');
    expectProblem(await admin.post('/teams', undefined, { rawBody: '"name"', contentType: 'application/json' }), 400, 'invalid_request', 'body');
    expectProblem(await admin.post('/teams', undefined, { rawBody: 'null', contentType: 'application/json' }), 400, 'invalid_request', 'body');
    // application/*+json is JSON too, and charset parameters are fine.
    expect((await admin.post('/teams', undefined, { rawBody: '{"name":"json-charset"}', contentType: 'application/json; charset=utf-8' })).status).to.equal(201);
  });

  it('successful answers are JSON; 204 answers have no body', async () => {
    const me = await admin.get('/me');
    expect(me.headers.get('content-type')).to.match(/^application\/json/);
    const token = (await admin.post<CreatedApiToken>('/me/tokens', { name: 'x' })).body;
    const del = await admin.delete(`/me/tokens/${token.id}`);
    expect(del.status).to.equal(204);
    expect(del.text).to.equal('');
  });

  it('GET /healthz and GET /readyz answer 200 without credentials; no Agent connected is still ready', async () => {
    const health = await t.api.get('/healthz');
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });
    const ready = await t.api.get('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ready', store: { ok: true, writable: true }, agentLink: { listening: true, agentsConnected: 0 } });
  });

  it('GET /metrics counts requests by route template, method and status (Prometheus text)', async () => {
    for (let i = 0; i < 3; i++) await admin.get(`/users/${(await admin.get<User>('/me')).body.id}`);
    await admin.get('/users/01900000-0000-7000-8000-000000000000');
    const res = await t.api.get('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain/);
    const line = (route: string, method: string, status: number) => {
      const re = new RegExp(`^cairn_http_requests_total\\{[^}]*route="${route.replace(/[/{}]/g, '\\$&')}"[^}]*\\} (\\d+)$`, 'm');
      const all = res.text.split('\n').filter((l) => re.test(l) && l.includes(`method="${method}"`) && l.includes(`status="${status}"`));
      return all.length === 1 ? Number(all[0].split(' ').pop()) : 0;
    };
    expect(line('/api/v1/users/:userId', 'GET', 200)).to.equal(3);
    expect(line('/api/v1/users/:userId', 'GET', 404)).to.equal(1);
    expect(line('/api/v1/me', 'GET', 200)).to.be.at.least(3);
    // Raw ids never become labels.
    expect(res.text).not.to.match(/route="\/api\/v1\/users\/[0-9a-f]{8}-/);
    expect(res.text).to.include('cairn_http_request_duration_seconds_bucket');
  });

  it('GET /api/v1/openapi.json is OpenAPI 3.1.0 with every mounted path and the problem codes', async () => {
    const res = await t.api.get<OpenApiDocument>('/api/v1/openapi.json');
    expect(res.status).to.equal(200);
    const doc = res.body;
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.info.title).to.be.a('string');
    const expected: Record<string, string[]> = {
      '/api/v1/setup': ['post'], '/api/v1/auth/login': ['post'], '/api/v1/auth/logout': ['post'],
      '/api/v1/auth/password-reset': ['post'], '/api/v1/me': ['get'], '/api/v1/me/password': ['post'],
      '/api/v1/me/tokens': ['get', 'post'], '/api/v1/me/tokens/{tokenId}': ['delete'],
      '/api/v1/users': ['get', 'post'], '/api/v1/users/{userId}': ['delete', 'get', 'patch'],
      '/api/v1/users/{userId}/password-reset': ['post'],
      '/api/v1/teams': ['get', 'post'], '/api/v1/teams/{teamId}': ['delete', 'get', 'patch'],
      '/api/v1/teams/{teamId}/members': ['get'], '/api/v1/teams/{teamId}/members/{userId}': ['delete', 'put'],
      '/api/v1/roles': ['get', 'post'], '/api/v1/roles/{roleId}': ['delete', 'get', 'patch'],
      '/api/v1/audit-events': ['get'], '/api/v1/network': ['get', 'patch'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(doc.paths, path).to.have.property(path);
      expect(Object.keys(doc.paths[path]), path).to.include.members(methods);
    }
    // Every path the document names is really mounted: no 404 from the router for any of them.
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const url = path.replace(/\{\w+\}/g, '01900000-0000-7000-8000-000000000000');
        const r = await t.api.request<Partial<Problem> | undefined>(method.toUpperCase(), url);
        const notMounted = (r.status === 404 && String(r.body?.detail).startsWith('No such path')) || r.status === 405;
        expect(notMounted, `${method} ${path} is documented but not mounted`).to.equal(false);
      }
    }
    const roleCreate = doc.paths['/api/v1/roles'].post;
    expect(roleCreate.requestBody?.content['application/json'].schema.properties.name).to.include({ minLength: 1, maxLength: 100 });
    expect(doc.info.description).to.include('too_many_attempts');
    expect(doc.components.securitySchemes.sessionCookie.name).to.equal('__Host-cairn_session');
  });

  it('PATCH /network changes the network record (administrators)', async () => {
    const res = await admin.patch<Network>('/network', { address: '203.0.113.7', port: 25570 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ address: '203.0.113.7', port: 25570, name: 'Main' });
    expectProblem(await admin.patch('/network', {}), 400, 'invalid_request');
    expectProblem(await admin.patch('/network', { port: 0 }), 400, 'invalid_request', 'body.port');
  });
});
