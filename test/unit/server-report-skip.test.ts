import { SleepAudit } from '../../src/controller/services/servers/sleep-audit.js';
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerFleet } from '../../src/controller/actors/server-fleet.js';
import { defaultRestartPolicy, emptyObserved } from '../../src/controller/domain/server-spec.js';
import { Access } from '../../src/controller/services/identity/access.js';
import type { AuditService } from '../../src/controller/services/audit/audit.js';
import type { DesiredChanges } from '../../src/controller/core/desired-changes.js';
import type { NodeDirectory } from '../../src/controller/core/node-directory.js';
import { ServerPlacements } from '../../src/controller/services/placement/placements.js';
import { ServerPortMoves } from '../../src/controller/services/servers/port-moves.js';
import type { ServerReport } from '../../src/controller/domain/server-report.js';
import { ServerReports } from '../../src/controller/services/servers/status-reports.js';
import { ServerChangeHub } from '../../src/controller/services/servers/change-hub.js';
import { ServerAggregate } from '../../src/controller/services/servers/aggregate.js';
import { PlacementTurn } from '../../src/controller/services/servers/placement-turn.js';
import { ServerRoom } from '../../src/controller/services/servers/room.js';
import { openStore } from '../../src/controller/store/open-store.js';
import type { ServerDoc } from '../../src/controller/store/records.js';
import type { Repositories } from '../../src/controller/store/repositories.js';
import { uuidV7Ids } from '../../src/shared/clock.js';
import { SecretBox } from '../../src/controller/security/secret-box.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TestClock } from '../support/clock.js';

const at = '2026-11-24T12:00:00.000Z';
const record = (id: string, phase: ServerDoc['phase']): ServerDoc => ({
  _id: id, name: id, teamId: 't1', nodeId: 'n1', kind: 'GAME_SERVER', generation: 1, phase, gamePort: 40000,
  desired: { state: 'STOPPED', software: { template: 'simcraft', version: '1.21.4' }, resources: { cpuMillis: 10, memoryBytes: 2 ** 26 }, inNetwork: false, restartPolicy: defaultRestartPolicy, acknowledgedConditions: [], restartNonce: 0 },
  ...(phase === 'PROVISIONING' ? { workflow: { kind: 'PROVISION', step: 'INSTALLING', startedAt: at } } : {}),
  observed: emptyObserved(), createdAt: at, updatedAt: at,
});
const report = (serverId: string, changes: Partial<ServerReport> = {}): ServerReport => ({
  serverId, observedGeneration: 1, runtimeState: 'STOPPED', installed: true, removed: false, restarting: false, startedInNetwork: false,
  usage: { cpuMillis: 0, memoryBytes: 0, diskBytes: 0 }, conditions: [], ...changes,
});

describe('server reports that change nothing', () => {
  let dir: string;
  let repos: Repositories;
  let clock: TestClock;
  let reports: ServerReports;
  let fleet: ServerFleet;
  let reads: number;
  let writes: ServerDoc[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-report-skip-'));
    clock = new TestClock();
    repos = await openStore({ dataDir: dir, clock });
    const deps = { repos, clock, ids: uuidV7Ids, logger: silentLogger, dataDir: dir, secrets: SecretBox.ofKey(randomBytes(32)) };
    const nodes = { isConnected: () => true, desiredStateChanged: () => undefined } as unknown as NodeDirectory & DesiredChanges;
    const watch = new ServerChangeHub();
    writes = [];
    watch.subscribe((change) => writes.push(change.doc));
    fleet = new ServerFleet();
    const servers = new ServerAggregate(deps, new Access(repos), fleet, nodes, nodes, watch, { subscribe: () => () => undefined });
    const placing = new PlacementTurn(new ServerRoom(repos, nodes, new ServerPlacements(repos), servers.portRefusals));
    reports = new ServerReports(deps, servers, new ServerPortMoves(deps, servers, placing, {} as AuditService), new SleepAudit({ recordSystem: async () => undefined }));
    reads = 0;
    const findById = repos.servers.findById.bind(repos.servers);
    repos.servers.findById = (id) => {
      reads += 1;
      return findById(id);
    };
  });
  afterEach(async () => {
    await repos.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a repeated report costs no read of the record and no write, and makes no actor; a change is read and written', async () => {
    await repos.servers.insert(record('s1', 'READY'));
    await reports.apply('n1', report('s1'));
    expect([reads, writes.length]).to.deep.equal([1, 1]);
    for (let i = 0; i < 5; i++) await reports.apply('n1', report('s1'));
    expect([reads, writes.length]).to.deep.equal([1, 1]);
    await reports.apply('n1', report('s1', { runtimeState: 'RUNNING' }));
    expect([reads, writes.length]).to.deep.equal([2, 2]);
    expect((await repos.servers.findById('s1'))!.observed.runtimeState).to.equal('RUNNING');
    expect(fleet.size).to.equal(0);
  });

  it('usage alone is written at most every 30 s, and a report from another Node is never read', async () => {
    await repos.servers.insert(record('s1', 'READY'));
    await reports.apply('n1', report('s1'));
    await reports.apply('n1', report('s1', { usage: { cpuMillis: 5, memoryBytes: 1, diskBytes: 0 } }));
    expect([reads, writes.length]).to.deep.equal([1, 1]);
    clock.advance(30_000);
    await reports.apply('n1', report('s1', { usage: { cpuMillis: 6, memoryBytes: 1, diskBytes: 0 } }));
    expect([reads, writes.length]).to.deep.equal([2, 2]);
    await reports.apply('n2', report('s1', { runtimeState: 'RUNNING' }));
    expect([reads, writes.length]).to.deep.equal([2, 2]);
  });

  it('while a report can end the phase (PROVISIONING), each report is decided on the record', async () => {
    await repos.servers.insert(record('s2', 'PROVISIONING'));
    await reports.apply('n1', report('s2', { installed: false, runtimeState: undefined }));
    await reports.apply('n1', report('s2', { installed: false, runtimeState: undefined }));
    expect(reads).to.equal(2);
    await reports.apply('n1', report('s2'));
    expect((await repos.servers.findById('s2'))!.phase).to.equal('READY');
  });
});
