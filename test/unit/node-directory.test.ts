import { expect } from 'chai';
import type { NodeFleet, NodeState } from '../../src/controller/actors/fleet.js';
import type { NodeInfo } from '../../src/controller/core/node-directory.js';
import { FleetNodeDirectory } from '../../src/controller/services/nodes/node-directory.js';
import type { StoredNodes } from '../../src/controller/services/nodes/stored-nodes.js';

const stored = (nodeId: string, cpuMillis: number): NodeInfo => ({
  nodeId, acceptsPlacements: true, allocatable: { cpuMillis, memoryBytes: 2 ** 30 }, hostname: 'h', gamePorts: { first: 30000, last: 30099 }, javaMajors: [],
});

const live = (nodeId: string, cpuMillis: number): NodeState => ({
  nodeId, adminState: 'ENABLED', connectionState: 'HEALTHY', acceptsPlacements: true, conditions: [], address: '',
  status: { allocatable: { cpuMillis, memoryBytes: 2 ** 30 }, hostname: 'h' } as NodeState['status'],
});

/**
 * Between a Node's lease gained and its record read again, this Controller drives the Node but has
 * no actor for it: the directory answers the store's word then, never "gone" (a PATCH through that
 * Controller was refused `insufficient_capacity` "The server's Node is gone." in the fault suite).
 */
describe('FleetNodeDirectory: Nodes driven here, and those another Controller drives', () => {
  const actors = new Map<string, NodeState>();
  const fleet = { state: (id: string) => actors.get(id), states: () => [...actors.values()] } as unknown as NodeFleet;
  const inStore = new Map([['n1', stored('n1', 1000)], ['n2', stored('n2', 2000)]]);
  const storedNodes = {
    get: async (id: string) => (inStore.has(id) ? { info: inStore.get(id)!, connected: true } : undefined),
    list: async () => [...inStore.values()].map((info) => ({ info, connected: true })),
  } as unknown as StoredNodes;
  const driven = new Set(['n1']);
  const directory = new FleetNodeDirectory(fleet, { termFor: (id) => (driven.has(id) ? 3 : undefined) }, storedNodes);

  beforeEach(() => actors.clear());

  it('a Node driven here with no actor yet (its lease just gained) is the store\'s, in get and in list', async () => {
    expect((await directory.get('n1'))?.allocatable.cpuMillis).to.equal(1000);
    expect((await directory.list()).map((n) => n.nodeId).sort()).to.deep.equal(['n1', 'n2']);
  });

  it('once its actor is there, the actor\'s live state wins over the store\'s', async () => {
    actors.set('n1', live('n1', 4000));
    expect((await directory.get('n1'))?.allocatable.cpuMillis).to.equal(4000);
    const listed = await directory.list();
    expect(listed.map((n) => `${n.nodeId}:${n.allocatable.cpuMillis}`).sort()).to.deep.equal(['n1:4000', 'n2:2000']);
  });

  it('an actor for a Node another Controller drives (left from before its lease was lost) is not believed', async () => {
    actors.set('n2', live('n2', 9000));
    expect((await directory.get('n2'))?.allocatable.cpuMillis).to.equal(2000);
    expect((await directory.list()).find((n) => n.nodeId === 'n2')?.allocatable.cpuMillis).to.equal(2000);
  });

  it('a Node gone from the store is gone', async () => {
    expect(await directory.get('n9')).to.equal(undefined);
  });
});
