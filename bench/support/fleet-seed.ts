import { once } from 'node:events';
import { systemClock, uuidV7Ids } from '../../src/shared/clock.js';
import { openStore } from '../../src/controller/store/open-store.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import { serverNameKey } from '../../src/controller/domain/server-name.js';
import { FakeAgent } from '../../test/support/fake-agent.js';
import type { Node, ServerDetail, Team } from '../../test/support/api-types.js';
import type { ApiClient } from '../../test/support/http.js';
import { adminClient } from './admin-session.js';
import { startControllerProcess } from './controller-process.js';

/** The game ports the bench's Agents offer (private, so no real server's port is named). */
export const fleetGamePorts = { first: 40000, last: 40999 };

/** What a seeded data dir holds beside the store: the administrator's session and the Nodes' one-time tokens. */
export interface FleetSeed {
  cookie: string;
  nodes: { id: string; token: string }[];
  serverIds: string[];
  /** Every server's memory reservation, which the change phase toggles. */
  memoryBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Seeds `dataDir` as the API would: first-run setup, a team, `nodeCount` Nodes through POST /nodes
 * (each with its enrollment token), and one server created through POST /servers on a template
 * Node a fake Agent serves until the server is READY. With the Controller stopped, that server's
 * document is cloned through the store's repository layer (new ids, names, Nodes and ports) into
 * `perNode` servers on every Node; the template server and its Node are removed.
 */
export async function seedFleet(dataDir: string, nodeCount: number, perNode: number, log: (line: string) => void): Promise<FleetSeed> {
  const { child, httpPort, grpcPort } = await startControllerProcess(dataDir);
  const memoryBytes = 64 * 2 ** 20;
  let template: { nodeId: string; serverId: string };
  const nodes: FleetSeed['nodes'] = [];
  let cookie: string;
  try {
    let admin: ApiClient;
    ({ admin, cookie } = await adminClient(httpPort, dataDir));
    const teamId = (await admin.post<Team>('/teams', { name: 'fleet' })).body.id;
    const started = performance.now();
    for (let i = 0; i < nodeCount; i += 25) {
      const batch = await Promise.all(Array.from({ length: Math.min(25, nodeCount - i) }, (_, j) =>
        admin.post<{ node: { id: string }; enrollmentToken: string }>('/nodes', { name: `fleet-${i + j}` })));
      for (const res of batch) {
        if (res.status !== 201) throw new Error(`POST /nodes answered ${res.status}: ${res.text}`);
        nodes.push({ id: res.body.node.id, token: res.body.enrollmentToken });
      }
    }
    log(`seed: ${nodeCount} Nodes through POST /nodes in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const agent = await FakeAgent.connect(admin, grpcPort, 'fleet-template', undefined, { gamePorts: fleetGamePorts });
    try {
      while ((await admin.get<Node>(`/nodes/${agent.nodeId}`)).body.status.connectionState !== 'HEALTHY') await sleep(20);
      const created = await admin.post<ServerDetail>('/servers', {
        name: 'fleet-template', teamId, nodeId: agent.nodeId, software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes },
      });
      if (created.status !== 201) throw new Error(`POST /servers answered ${created.status}: ${created.text}`);
      template = { nodeId: agent.nodeId, serverId: created.body.id };
      const deadline = performance.now() + 30_000;
      while ((await admin.get<ServerDetail>(`/servers/${template.serverId}`)).body.phase !== 'READY') {
        if (performance.now() > deadline) throw new Error('the template server did not get READY in 30 s');
        await sleep(50);
      }
    } finally {
      agent.stop();
    }
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  return { cookie, nodes, serverIds: await cloneServers(dataDir, template, nodes, perNode, log), memoryBytes };
}

async function cloneServers(dataDir: string, template: { nodeId: string; serverId: string }, nodes: FleetSeed['nodes'], perNode: number, log: (line: string) => void): Promise<string[]> {
  const repos = await openStore({ dataDir, clock: systemClock });
  try {
    const original = await repos.servers.findById(template.serverId);
    if (!original) throw new Error('the template server is not in the store');
    const started = performance.now();
    const ids: string[] = [];
    for (const [n, node] of nodes.entries()) {
      const docs: ServerDoc[] = Array.from({ length: perNode }, (_, k) => ({
        ...structuredClone(original), _id: uuidV7Ids.next(), name: `fleet-${n}-${k}`, nameKey: serverNameKey(original.teamId, `fleet-${n}-${k}`), nodeId: node.id, gamePort: fleetGamePorts.first + k,
      }));
      await Promise.all(docs.map((doc) => repos.servers.insert(doc)));
      ids.push(...docs.map((doc) => doc._id));
    }
    await repos.servers.delete({ _id: template.serverId });
    await repos.nodes.delete({ _id: template.nodeId });
    log(`seed: ${ids.length} servers cloned from one created through POST /servers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return ids;
  } finally {
    await repos.close();
  }
}
