import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node, ServerDetail } from '../support/api-types.js';
import { GiB, startFleet, tcpAccepts, waitForServer, type ExtraNode, type Fleet } from '../support/fleet.js';
import { writeWorld } from '../support/world-files.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const MiB = 1024 * 1024;
const isRunning = (s: ServerDetail) => s.phase === 'READY' && s.status.runtimeState === 'RUNNING' && s.convergence === 'CONVERGED';
const sha256Of = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

/** The bytes migrations copied by path, as `cairn_migration_copy_bytes_total` says. */
async function copiedBytes(f: Fleet): Promise<{ direct: number; relayed: number }> {
  const text = (await f.t.api.get('/metrics')).text;
  const series = (path: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`cairn_migration_copy_bytes_total{path="${path}"}`));
    if (!line) throw new Error(`no cairn_migration_copy_bytes_total{path="${path}"} in /metrics`);
    return Number(line.split(' ').pop());
  };
  return { direct: series('direct'), relayed: series('relayed') };
}

describe('migration Agent to Agent: the target pulls from the source, or the Controller carries the files', function () {
  this.timeout(120_000);
  let f: Fleet;
  let second: ExtraNode;
  const rootOn = (agentDir: string, id: string) => join(agentDir, 'servers', id, 'root');

  /** A RUNNING server on the first Node with a world of region files; answers it and its region files' sha256 by path (simcraft rewrites the rest). */
  const runningWithWorld = async (name: string) => {
    const res = await f.admin.post<ServerDetail>('/servers', { name, teamId: f.teamId, software: simcraft, resources: { cpuMillis: 1000, memoryBytes: GiB }, nodeId: f.nodeId });
    expect(res.status, res.text).to.equal(201);
    await waitForServer(f.admin, res.body.id, (s) => s.phase === 'READY', 'READY');
    const paths = await writeWorld(rootOn(f.agentDir, res.body.id), 24 * MiB, 4 * MiB);
    const regions = paths.filter((p) => p.startsWith('world/region/'));
    const hashes = new Map(await Promise.all(regions.map(async (p) => [p, await sha256Of(join(rootOn(f.agentDir, res.body.id), p))] as const)));
    expect((await f.admin.post(`/servers/${res.body.id}/start`)).status).to.equal(202);
    await waitForServer(f.admin, res.body.id, isRunning, 'RUNNING', 30_000);
    return { id: res.body.id, hashes };
  };

  /** Migrates to the second Node; answers the server RUNNING there and every copy path the workflow showed meanwhile. */
  const migrate = async (id: string) => {
    const res = await f.admin.post<ServerDetail>(`/servers/${id}/migrate`, { nodeId: second.nodeId });
    expect(res.status, res.text).to.equal(202);
    const paths = new Set<string>();
    const moved = await waitForServer(f.admin, id, (s) => {
      if (s.workflow?.copyPath) paths.add(s.workflow.copyPath);
      return isRunning(s) && s.nodeId === second.nodeId;
    }, 'RUNNING on node-2', 60_000);
    expect(moved.conditions.map((c) => c.reason)).to.not.include('MIGRATION_FAILED');
    expect(await tcpAccepts(moved.gamePort!)).to.equal(true);
    return { moved, paths };
  };

  const expectSameFiles = async (id: string, hashes: ReadonlyMap<string, string>) => {
    for (const [path, sha256] of hashes) expect(await sha256Of(join(rootOn(second.agentDir, id), path)), path).to.equal(sha256);
  };

  before(async () => {
    f = await startFleet({
      nodeTimings: { heartbeatIntervalMs: 500, degradedAfterMs: 2_000, unreachableAfterMs: 4_000 },
      migrationTimings: { stopMs: 20_000, startMs: 30_000, removeMs: 20_000 },
    });
    second = await f.addNode('node-2');
  });
  // Undefined when before() failed first: its own error is the one to read.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  after(async () => f?.dispose());

  it('copies a running world straight from the source Agent: not one byte relayed by the Controller, every file intact', async () => {
    const { id, hashes } = await runningWithWorld('direct');
    const before = await copiedBytes(f);
    const { paths } = await migrate(id);
    const after = await copiedBytes(f);
    expect(after.relayed, 'bytes relayed by the Controller').to.equal(before.relayed);
    expect(after.direct - before.direct, 'bytes copied Agent to Agent').to.be.at.least(24 * MiB);
    expect([...paths]).to.not.include('RELAYED');
    await expectSameFiles(id, hashes);
  });

  it('goes through the Controller when the target cannot reach the source, and says so', async () => {
    // The Agents listen on 127.0.0.1 only: another loopback address refuses the connection at once.
    const moved = await f.admin.patch<Node>(`/nodes/${f.nodeId}`, { address: '127.0.0.2' });
    expect(moved.status, moved.text).to.equal(200);
    try {
      const { id, hashes } = await runningWithWorld('relayed');
      const before = await copiedBytes(f);
      const { paths } = await migrate(id);
      const after = await copiedBytes(f);
      expect(after.direct, 'bytes copied Agent to Agent').to.equal(before.direct);
      expect(after.relayed - before.relayed, 'bytes relayed by the Controller').to.be.at.least(24 * MiB);
      expect([...paths]).to.not.include('DIRECT');
      await expectSameFiles(id, hashes);
    } finally {
      await f.admin.patch(`/nodes/${f.nodeId}`, { address: '' });
    }
  });
});
