import { expect } from 'chai';
import { join } from 'node:path';
import type { CommandSent, ConsoleStreamEvent, ServerDetail } from './api-types.js';
import { GiB, startFleet, waitForServer, type Fleet } from './fleet.js';
import { openSse, type SseStream } from './sse.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };

export const running = (s: ServerDetail) => s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';

/**
 * Mocha hooks shared by the suites that operate one server: a Fleet (Controller and real Agent) with
 * a simcraft server running before the first test, the console streams a test opens closed after it
 * so their slots are free for the next, and the Fleet disposed after the suite.
 */
export function serverOpsRig() {
  const streams: SseStream<ConsoleStreamEvent>[] = [];
  const rig = {
    f: undefined as unknown as Fleet,
    id: undefined as unknown as string,
    rootOf: () => join(rig.f.agentDir, 'servers', rig.id, 'root'),
    q: (path: string) => `?path=${encodeURIComponent(path)}`,
    watch: async (tail?: number) => {
      const consoleUrl = `${rig.f.t.baseUrl}/api/v1/servers/${rig.id}/console${tail === undefined ? '' : `?tail=${tail}`}`;
      const stream = await openSse<ConsoleStreamEvent>(consoleUrl, { cookie: rig.f.admin.auth.cookie! });
      streams.push(stream);
      return stream;
    },
    command: (text: string) => rig.f.admin.post<CommandSent>(`/servers/${rig.id}/console/commands`, { command: text }),
    put: (path: string, body: Buffer | string) => rig.f.admin.request('PUT', `/servers/${rig.id}/files/content${rig.q(path)}`, { rawBody: body }),
  };

  before(async () => {
    rig.f = await startFleet();
    const created = await rig.f.admin.post<ServerDetail>('/servers', { name: 'ops', teamId: rig.f.teamId, software: simcraft, resources: { cpuMillis: 1000, memoryBytes: GiB } });
    expect(created.status, created.text).to.equal(201);
    rig.id = created.body.id;
    await waitForServer(rig.f.admin, rig.id, (s) => s.phase === 'READY', 'READY');
    expect((await rig.f.admin.post(`/servers/${rig.id}/start`)).status).to.equal(202);
    await waitForServer(rig.f.admin, rig.id, running, 'RUNNING');
  });
  afterEach(() => streams.splice(0).forEach((s) => s.close()));
  after(async () => {
    streams.forEach((s) => s.close());
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- after() runs even when before() failed before assigning it
    await rig.f?.dispose();
  });

  return rig;
}
