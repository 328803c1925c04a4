import { expect } from 'chai';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node, ServerDetail } from '../support/api-types.js';
import { startFleet, type Fleet } from '../support/fleet.js';
import { waitFor } from '../support/wait-for.js';

const simcraft = { template: 'simcraft', version: '1.21.4' };
const gone = (path: string) => access(path).then(() => false, () => true);

describe('a delete right after a create (real Agent): nothing is stranded in DELETING', function () {
  this.timeout(180_000);
  let f: Fleet;
  before(async () => (f = await startFleet()));
  after(async () => f.dispose());

  it('50 create-then-delete pairs with no wait all end deleted: records gone, reservations freed, directories removed', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const created = await f.admin.post<ServerDetail>('/servers', { name: `flash-${i}`, teamId: f.teamId, software: simcraft, resources: { cpuMillis: 10, memoryBytes: 2 ** 20 } });
      expect(created.status, created.text).to.equal(201);
      const deleted = await f.admin.delete(`/servers/${created.body.id}`);
      expect(deleted.status, deleted.text).to.equal(202);
      ids.push(created.body.id);
    }
    await waitFor(async () => {
      const left = await Promise.all(ids.map(async (id) => (await f.admin.get<ServerDetail>(`/servers/${id}`)).status));
      return left.every((status) => status === 404) || undefined;
    }, { what: 'all 50 servers to be deleted', timeoutMs: 120_000 });
    const node = (await f.admin.get<Node>(`/nodes/${f.nodeId}`)).body;
    expect(node.reserved).to.deep.equal({ cpuMillis: 0, memoryBytes: 0 });
    await waitFor(async () => (await Promise.all(ids.map((id) => gone(join(f.agentDir, 'servers', id))))).every(Boolean) || undefined, { what: 'their directories to be removed' });
  });
});
