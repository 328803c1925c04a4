import { SleeperPool } from '../../src/agent/sleeper/sleeper-pool.js';
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GameBoxes } from '../../src/agent/isolation/game-boxes.js';
import { Installer } from '../../src/agent/reconciler/installer.js';
import { Reconciler } from '../../src/agent/reconciler/reconciler.js';
import { ProcessRuntime } from '../../src/agent/runtime/process-runtime.js';
import type { DesiredServer, ServerStatus } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';

const desired = (serverId: string, over: Partial<DesiredServer>): DesiredServer => ({
  serverId, generation: 2, software: { template: 'simcraft', version: '1.21.4', build: '' }, resources: { cpuMillis: 500, memoryBytes: 2 ** 28, diskBytes: 0 },
  gamePort: 25570, desiredState: 'DESIRED_RUNTIME_STATE_RUNNING', restartPolicy: { maxRestarts: 0, windowSeconds: 60 },
  acknowledgedConditionIds: [], inNetwork: false, restartNonce: 0, templateJson: '', plugins: [], network: null, egressAllow: [], sleep: null, wakeNonce: 0, ...over,
});

describe('reconciler: templates arriving over the link', () => {
  let dataDir: string;
  let reconciler: Reconciler;
  const statuses: ServerStatus[] = [];

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-reconciler-'));
    reconciler = new Reconciler({
      dataDir, runtime: new ProcessRuntime({ dataDir }), installer: new Installer(join(dataDir, 'cache'), { fetch: () => Promise.reject(new Error('this test installs built-in programs only')) }),
      boxes: GameBoxes.off(silentLogger), host: { javas: [], bindAddress: '127.0.0.1' }, logger: silentLogger, restartBackoffMs: 100, statusIntervalMs: 60_000, sleepers: new SleeperPool(silentLogger),
    });
    statuses.length = 0;
    reconciler.attach({ onDesiredState: () => () => true, onDesiredChange: () => () => true, onConnected: () => () => true, sendServerStatus: (status) => statuses.push(status) > 0 });
  });
  afterEach(async () => {
    reconciler.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a malformed or missing template: nothing is installed, the status says why, the rest of the state applies', async () => {
    await reconciler.apply({
      revision: 1,
      leaseTerm: 0,
      servers: [
        desired('0190a1b2-0000-7000-8000-000000000001', { templateJson: '{"id":"simcraft","run":{"command":"rm"}}' }),
        desired('0190a1b2-0000-7000-8000-000000000002', { templateJson: '' }),
        desired('0190a1b2-0000-7000-8000-000000000003', { desiredState: 'DESIRED_RUNTIME_STATE_DELETED' }),
      ],
    });
    expect(reconciler.serverIds()).to.deep.equal([]);
    expect(statuses.map((s) => [s.serverId.slice(-1), s.installed, s.removed, s.installError])).to.deep.equal([
      ['1', false, false, 'the server\'s template was refused: name: is required'],
      ['2', false, false, 'the server\'s template was refused: the Controller does not know the template'],
      ['3', false, true, ''],
    ]);
    expect(statuses.every((s) => s.observedGeneration === 2)).to.equal(true);
  });
});
