import { expect } from 'chai';
import { createReadyUser, setupAdmin, startTestController, type TestController } from '../support/controller.js';
import type { AgentLink, OpenApiDocument } from '../support/api-types.js';
import type { ApiClient } from '../support/http.js';
import { expectProblem } from '../support/problems.js';

describe('GET /agent-link (where Agents dial the Controller)', () => {
  let t: TestController;
  let admin: ApiClient;

  before(async () => {
    t = await startTestController();
    ({ admin } = await setupAdmin(t));
  });
  after(async () => t.dispose());

  it('tells a global administrator the Agent link\'s host, real port and that it is plaintext', async () => {
    const res = await admin.get('/agent-link');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ host: '127.0.0.1', port: t.controller.grpcPort, tls: false });
  });

  it('needs the global permission nodes.manage, and is in the API reference', async () => {
    const { client, userId } = await createReadyUser(t, admin, 'link-reader');
    expectProblem(await client.get('/agent-link'), 403, 'forbidden');
    await admin.patch(`/users/${userId}`, { globalPermissions: ['nodes.manage'] });
    expect((await client.get<AgentLink>('/agent-link')).body.port).to.equal(t.controller.grpcPort);
    const doc = (await t.api.get<OpenApiDocument>('/api/v1/openapi.json')).body;
    expect(doc.paths['/api/v1/agent-link'].get.responses['200'].content?.['application/json'].schema.required).to.include.members(['port', 'tls']);
  });

  it('leaves the host out when the link listens on every interface', async () => {
    const wide = await startTestController({ extraArgs: ['--host', '0.0.0.0', '--insecure-link'] });
    try {
      const { admin: wideAdmin } = await setupAdmin(wide);
      const res = await wideAdmin.get('/agent-link');
      expect(res.body).to.deep.equal({ port: wide.controller.grpcPort, tls: false });
    } finally {
      await wide.dispose();
    }
  });
});
