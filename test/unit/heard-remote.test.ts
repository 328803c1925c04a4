import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerFleet } from '../../src/controller/actors/server-fleet.js';
import type { DesiredChanges } from '../../src/controller/core/desired-changes.js';
import type { NodeDirectory } from '../../src/controller/core/node-directory.js';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import { SecretBox } from '../../src/controller/security/secret-box.js';
import { Access } from '../../src/controller/services/identity/access.js';
import { ServerAggregate } from '../../src/controller/services/servers/aggregate.js';
import { ServerChangeHub } from '../../src/controller/services/servers/change-hub.js';
import { openStore } from '../../src/controller/store/open-store.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import { uuidV7Ids } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TestClock } from '../support/clock.js';

const at = '2026-11-24T12:00:00.000Z';
const record = (id: string): ServerDoc => ({
  _id: id, name: id, teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', generation: 1, phase: 'READY', gamePort: 40000,
  desired: { state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 26 }, inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0 },
  observed: emptyObserved(), createdAt: at, updatedAt: at,
});
const start = { type: 'START', at } as const;

/** The aggregate's part in a change made through another Controller on the same store. */
describe('server changes heard from another Controller', () => {
  let dir: string;
  let repos: Repositories;
  let clock: TestClock;
  let aggregate: ServerAggregate;
  let told: { nodeId: string; generation: number }[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-heard-remote-'));
    clock = new TestClock();
    repos = await openStore({ dataDir: dir, clock });
    const deps = { repos, clock, ids: uuidV7Ids, logger: silentLogger, dataDir: dir, secrets: SecretBox.ofKey(randomBytes(32)) };
    told = [];
    const desired: DesiredChanges = { desiredStateChanged: (nodeId, servers) => servers?.forEach((s) => told.push({ nodeId, generation: s.generation })) };
    const nodes = { isConnected: () => true } as unknown as NodeDirectory;
    aggregate = new ServerAggregate(deps, new Access(repos), new ServerFleet(), nodes, desired, new ServerChangeHub(), { subscribe: () => () => undefined });
  });
  afterEach(async () => {
    await repos.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Another Controller's write: the record as its own aggregate would leave it after `event`. */
  async function writtenElsewhere(serverId: string): Promise<ServerDoc> {
    const other = new ServerAggregate(
      { repos, clock, ids: uuidV7Ids, logger: silentLogger, dataDir: dir, secrets: SecretBox.ofKey(randomBytes(32)) },
      new Access(repos), new ServerFleet(), { isConnected: () => false }, { desiredStateChanged: () => undefined }, new ServerChangeHub(), { subscribe: () => () => undefined },
    );
    clock.advance(1);
    return other.apply((await repos.servers.findById(serverId))!, start);
  }

  it('the holder of the Node sends the change on once; a Controller that does not drive it sends nothing', async () => {
    await repos.servers.insert(record('s1'));
    const changed = await writtenElsewhere('s1');
    expect(changed.generation).to.equal(2);
    await aggregate.heardRemote('s1', ['n1'], () => false);
    expect(told).to.deep.equal([]);
    await aggregate.heardRemote('s1', ['n1'], (nodeId) => nodeId === 'n1');
    expect(told).to.deep.equal([{ nodeId: 'n1', generation: 2 }]);
    // The same change heard again (or a later one that changed only what the Node does not run) is not sent twice.
    await aggregate.heardRemote('s1', ['n1'], (nodeId) => nodeId === 'n1');
    expect(told).to.have.length(1);
  });

  it('a server moved to a Node driven elsewhere and back, its generation unchanged, is sent again to the Node it came back to', async () => {
    await repos.servers.insert(record('s4'));
    await writtenElsewhere('s4');
    const drivesN1 = (nodeId: string) => nodeId === 'n1';
    await aggregate.heardRemote('s4', ['n1'], drivesN1);
    expect(told).to.deep.equal([{ nodeId: 'n1', generation: 2 }]);
    // Migrated by other Controllers to n2 and back: the Agent on n1 removed its copy meanwhile, so it must hear of it again.
    await repos.servers.update({ _id: 's4' }, { nodeId: 'n2' });
    await aggregate.heardRemote('s4', ['n2'], drivesN1);
    await repos.servers.update({ _id: 's4' }, { nodeId: 'n1' });
    await aggregate.heardRemote('s4', ['n1'], drivesN1);
    expect(told).to.deep.equal([{ nodeId: 'n1', generation: 2 }, { nodeId: 'n1', generation: 2 }]);
  });

  it('the holder of the Node a migration rolling back removes its copy from hears the change, though the server is on another Node', async () => {
    await repos.servers.insert({ ...record('s5'), nodeId: 'n2', workflow: { kind: 'MIGRATE', startedAt: at, step: 'rolling back', targetNodeId: 'n1', removeOnNodeId: 'n1' } });
    const drivesN1 = (nodeId: string) => nodeId === 'n1';
    await aggregate.heardRemote('s5', ['n2'], drivesN1);
    expect(told, 'named only by its Node').to.deep.equal([]);
    await aggregate.heardRemote('s5', ['n2', 'n1'], drivesN1);
    expect(told).to.deep.equal([{ nodeId: 'n1', generation: 1 }]);
  });

  it('a change whose record a report\'s turn read first (the actor rebuilt from it) is still sent on when heard', async () => {
    await repos.servers.insert(record('s2'));
    const changed = await writtenElsewhere('s2');
    // The Agent's report arrives before the feed: its turn rebuilds the actor from the newer record, and sends nothing.
    aggregate.requireAccepts(changed, { type: 'STOP', at } as const);
    expect(told).to.deep.equal([]);
    await aggregate.heardRemote('s2', ['n1'], (nodeId) => nodeId === 'n1');
    expect(told).to.deep.equal([{ nodeId: 'n1', generation: 2 }]);
  });

  it('a command decided on an actor another Controller moved past is decided again on the record, never over it', async () => {
    await repos.servers.insert(record('s2'));
    // This Controller's actor stands at READY, generation 1; the other starts the server meanwhile.
    aggregate.requireAccepts((await repos.servers.findById('s2'))!, start);
    await writtenElsewhere('s2');
    clock.advance(1);
    const stopped = await aggregate.apply((await repos.servers.findById('s2'))!, { type: 'STOP', at });
    expect([stopped.generation, stopped.desired.state]).to.deep.equal([3, 'STOPPED']);
    expect((await repos.servers.findById('s2'))!.generation).to.equal(3);
  });

  it('a write another Controller made between the read and the write is kept: the command is decided again on it', async () => {
    await repos.servers.insert(record('s3'));
    const findById = repos.servers.findById.bind(repos.servers);
    let meddle = true;
    repos.servers.findById = async (id) => {
      const doc = await findById(id);
      if (meddle) {
        meddle = false;
        clock.advance(1);
        await repos.servers.update({ _id: id }, { name: 'renamed', updatedAt: clock.now().toISOString() });
      }
      return doc;
    };
    const started = await aggregate.apply(record('s3'), start);
    const stored = (await findById('s3'))!;
    expect([stored.name, stored.generation, stored.desired.state]).to.deep.equal(['renamed', 2, 'RUNNING']);
    expect(started.name).to.equal('renamed');
  });
});
