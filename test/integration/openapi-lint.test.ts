import { expect } from 'chai';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { randomUUID } from 'node:crypto';
import { setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { OpenApiDocument } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';

/**
 * What Redocly's `recommended` rules may still say, and why: GET /setup and GET /auth/methods need
 * no credentials, no parameters and no body, so they have no client error to document (they
 * answer 200, or 500).
 */
const accepted = [
  { ruleId: 'operation-4xx-response', pointer: '#/paths/~1api~1v1~1setup/get/responses' },
  { ruleId: 'operation-4xx-response', pointer: '#/paths/~1api~1v1~1auth~1methods/get/responses' },
];

describe('the OpenAPI document, checked by Redocly (recommended rules) and against real answers', function () {
  this.timeout(30_000);
  let t: TestController;
  let admin: ApiClient;
  let source: string;
  let doc: OpenApiDocument;
  const operation = (method: string, path: string) => doc.paths[`/api/v1${path}`][method];

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
    const res = await t.api.get('/api/v1/openapi.json');
    source = res.text;
    doc = JSON.parse(source) as OpenApiDocument;
  });
  after(async () => t.dispose());

  it('lints with no error and no warning beyond the one accepted, tags defined and described', async () => {
    const startedAt = performance.now();
    const config = await createConfig({ extends: ['recommended'], rules: { 'operation-tag-defined': 'error', 'tag-description': 'error' } });
    const problems = await lintFromString({ source, absoluteRef: `${t.baseUrl}/api/v1/openapi.json`, config });
    const lintMs = performance.now() - startedAt;
    const found = problems.map((p) => ({ ruleId: p.ruleId, pointer: p.location[0]?.pointer, severity: p.severity, message: p.message }));
    expect(found.map(({ ruleId, pointer }) => ({ ruleId, pointer })), JSON.stringify(found, null, 1).slice(0, 3000)).to.deep.equal(accepted);
    expect(lintMs, 'lint time').to.be.below(10_000);
  });

  it('names a license, and every operation its problems, derived from its declaration, with the shared Problem schema', () => {
    expect(doc.info.license).to.deep.equal({ name: 'Proprietary: no license is granted', identifier: 'LicenseRef-Proprietary' });
    const problemStatuses = (method: string, path: string) => Object.keys(operation(method, path).responses).filter((s) => /^[45]\d\d$/.test(s));
    expect(problemStatuses('get', '/setup')).to.deep.equal([]);
    expect(problemStatuses('post', '/auth/login')).to.deep.equal(['400', '401', '403', '413', '429']);
    expect(problemStatuses('get', '/servers')).to.deep.equal(['400', '401', '403']);
    expect(problemStatuses('get', '/servers/{serverId}')).to.deep.equal(['400', '401', '403', '404']);
    expect(problemStatuses('put', '/servers/{serverId}/files/content')).to.deep.equal(['400', '401', '403', '404', '408', '409', '413', '429', '503', '507']);
    expect(problemStatuses('get', '/servers/{serverId}/console')).to.deep.equal(['400', '401', '403', '404', '409', '429', '503']);
    expect(operation('put', '/servers/{serverId}/files/content').responses['403'].description).to.include('`read_only`').and.include('`forbidden`');
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!/^[45]\d\d$|^default$/.test(status)) continue;
          expect(response.content, `${method} ${path} ${status}`).to.deep.equal({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
        }
      }
    }
    expect(operation('get', '/servers/watch').responses['200'].content).to.have.property('text/event-stream');
    expect(operation('get', '/servers/watch').description).to.include('`data: {"reason": "shutdown"}`');
  });

  it('real problem answers match the Problem schema, with a status their operation documents', async () => {
    const validate = new Ajv2020({ strict: false }).compile(doc.components.schemas.Problem);
    const cases: { method: string; path: string; call: () => Promise<{ status: number; body: unknown; headers: Headers }> }[] = [
      { method: 'get', path: '/servers', call: () => t.api.get('/servers') },
      { method: 'get', path: '/servers/{serverId}', call: () => admin.get(`/servers/${randomUUID()}`) },
      { method: 'get', path: '/servers/{serverId}', call: () => admin.get('/servers/not-a-uuid') },
      { method: 'post', path: '/teams', call: () => admin.post('/teams', { name: 'x'.repeat(2 * 1024 * 1024) }) },
      { method: 'post', path: '/teams', call: () => admin.post('/teams', { name: 'Ops', unknown: 1 }) },
    ];
    for (const c of cases) {
      const res = await c.call();
      const where = `${c.method} ${c.path} → ${res.status}`;
      expect(res.headers.get('content-type'), where).to.match(/^application\/problem\+json/);
      expect(validate(res.body), `${where}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      expect(Object.keys(operation(c.method, c.path).responses), where).to.include(String(res.status));
    }
  });
});
