import type { AgentLinkClient } from '../../src/agent/link/link-client.js';
import { setupAdmin, startTestController, type TestController, type TestControllerOptions } from './controller.js';
import type { EnrollmentIssued } from './api-types.js';
import type { ApiClient } from './http.js';

/**
 * Mocha hooks shared by the suites that speak the Agent link in-process: one test Controller for
 * the suite, its administrator, and the link clients a test opens, stopped after each test so a
 * failing test does not leave a stream reconnecting into the next one.
 */
export function linkHarness(nodeTimings: TestControllerOptions['nodeTimings']) {
  const h = {
    t: undefined as unknown as TestController,
    admin: undefined as unknown as ApiClient,
    clients: [] as AgentLinkClient[],
    address: () => `127.0.0.1:${h.t.controller.grpcPort}`,
    createNode: async (name: string) => (await h.admin.post<EnrollmentIssued>('/nodes', { name })).body,
  };
  before(async () => {
    h.t = await startTestController({ nodeTimings });
    ({ admin: h.admin } = await setupAdmin(h.t));
  });
  afterEach(() => {
    for (const c of h.clients.splice(0)) c.stop();
  });
  after(async () => h.t.dispose());
  return h;
}
