import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { HolderRoutes, PeerController, PeerHttp } from '../../src/controller/link/peer-http.js';
import { BackupHandoff, backupRunPath } from '../../src/controller/services/backups/backup-handoff.js';
import type { BackupRunner } from '../../src/controller/services/backups/backup-runner.js';
import { HolderHandoff } from '../../src/controller/services/leases/holder-handoff.js';
import type { BackupDoc } from '../../src/controller/store/records.js';
import { silentLogger } from '../../src/shared/logger.js';

const holder: PeerController = { id: 'controller-b', httpAddress: '127.0.0.1:1' };
const backup = (id: string, nodeId: string, state: BackupDoc['state'] = 'PENDING') => ({ _id: id, serverId: `server-of-${id}`, nodeId, state } as BackupDoc);

/**
 * A backup asked through a Controller that does not drive its Node is run by the one that does;
 * the one asked runs it only when nobody takes it.
 */
describe('a backup handed to the holder of its Node', () => {
  let records: Map<string, BackupDoc>;
  let enqueued: string[];
  let asked: { path: string; payload: unknown }[];
  let queuedHere: Set<string>;

  function handoffOf(status: number | undefined, drives: (nodeId: string) => boolean): BackupHandoff {
    const routes: HolderRoutes = { holderOf: (nodeId) => Promise.resolve(drives(nodeId) ? undefined : holder), forget: () => undefined };
    const peers = {
      post: (_peer: PeerController, path: string, _purpose: string, payload: unknown) => {
        asked.push({ path, payload });
        if (status === undefined) return Promise.reject(new Error('connect ECONNREFUSED'));
        return Promise.resolve(Object.assign(Readable.from([]), { statusCode: status }) as unknown as IncomingMessage);
      },
    } as unknown as PeerHttp;
    const runner = {
      enqueue: (backupId: string) => {
        enqueued.push(backupId);
        queuedHere.add(backupId);
        return Promise.resolve(undefined);
      },
      queued: (backupId: string) => queuedHere.has(backupId),
    } as unknown as BackupRunner;
    const backups = { findById: (id: string) => Promise.resolve(records.get(id) ?? null) };
    return new BackupHandoff(runner, backups, silentLogger, new HolderHandoff(routes, peers, silentLogger, drives));
  }

  /** Resolves once `queue`'s background work has had its turns. */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

  beforeEach(() => {
    records = new Map();
    enqueued = [];
    asked = [];
    queuedHere = new Set();
  });

  it('queued through a Controller that does not drive the Node: asked of its holder, not run here', async () => {
    handoffOf(202, () => false).queue(backup('b1', 'node-b'));
    await settled();
    expect(asked).to.deep.equal([{ path: backupRunPath, payload: { backupId: 'b1' } }]);
    expect(enqueued).to.deep.equal([]);
  });

  it('run here when its Node is driven here, when the holder refuses (409) and when it cannot be reached', async () => {
    handoffOf(202, () => true).queue(backup('here', 'node-a'));
    handoffOf(409, () => false).queue(backup('refused', 'node-b'));
    handoffOf(undefined, () => false).queue(backup('unreachable', 'node-b'));
    await settled();
    expect(asked.map((a) => (a.payload as { backupId: string }).backupId)).to.deep.equal(['refused', 'unreachable']);
    expect(enqueued.sort()).to.deep.equal(['here', 'refused', 'unreachable']);
  });

  it('adopted by the holder once: queued when PENDING on a Node it drives; refused on a Node it does not, or a backup it does not know', async () => {
    const handoff = handoffOf(202, (nodeId) => nodeId === 'node-b');
    records.set('b1', backup('b1', 'node-b'));
    records.set('elsewhere', backup('elsewhere', 'node-c'));
    records.set('done', backup('done', 'node-b', 'SUCCEEDED'));
    expect(await handoff.adopt('b1')).to.equal(true);
    expect(await handoff.adopt('b1')).to.equal(true);
    expect(await handoff.adopt('done')).to.equal(true);
    expect(await handoff.adopt('elsewhere')).to.equal(false);
    expect(await handoff.adopt('unknown')).to.equal(false);
    expect(enqueued).to.deep.equal(['b1']);
  });
});
