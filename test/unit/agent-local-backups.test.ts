import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupHost } from '../../src/agent/transfers/backup-host.js';
import { HashCaches } from '../../src/agent/transfers/hash-caches.js';
import { LocalBackups } from '../../src/agent/transfers/local-backups.js';
import { LocalStores } from '../../src/agent/transfers/local-stores.js';
import { Quiescer } from '../../src/agent/transfers/quiesce.js';
import type { ServerOnNode } from '../../src/agent/reconciler/reconciler.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Template } from '../../src/shared/templates.js';
import { failureOf } from '../support/agent-failure.js';

const serverId = '0190a5c4-0000-7000-8000-000000000001';

describe('agent: backups kept on the Node', () => {
  let dataDir: string;
  let destination: string;
  let server: ServerOnNode;
  let backups: LocalBackups;
  const typed: string[] = [];
  const signal = new AbortController().signal;
  const take = (backupId: string, destinationPath = destination) => backups.backup({ serverId, backupId, destinationPath, quiesce: true }, signal);

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cairn-local-backups-'));
    destination = join(dataDir, 'backups', 'nightly');
    const root = join(dataDir, 'servers', serverId, 'root');
    await mkdir(join(root, 'world', 'region'), { recursive: true });
    await writeFile(join(root, 'world', 'region', 'r.0.0.mca'), randomBytes(256 * 1024));
    await writeFile(join(root, 'world', 'level.dat'), 'saves=1');
    typed.length = 0;
    // Stopped: a backup copies the files as they are and types nothing.
    server = { root, running: false, template: { backup: { quiesce: ['save-off'], waitFor: 'x', resume: ['save-on'], timeoutSeconds: 1 } } as Template };
    const host: BackupHost = { serverOnNode: (id) => (id === serverId ? server : undefined), replaceFiles: async () => undefined };
    const console = { attach: async () => () => undefined, sendCommand: async (_id: string, line: string) => void typed.push(line) };
    backups = new LocalBackups({ host, quiescer: new Quiescer(console, silentLogger), caches: new HashCaches(), stores: new LocalStores(dataDir), now: () => new Date() });
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('backs up into a store it creates; a second backup stores only what changed', async () => {
    const first = await take('b-1');
    expect(first).to.include({ fileCount: 2, sizeBytes: 256 * 1024 + 7 });
    expect(first.storedBytes).to.be.greaterThan(200 * 1024);
    await writeFile(join(server.root, 'world', 'level.dat'), 'saves=2');
    const second = await take('b-2');
    expect(second.fileCount).to.equal(2);
    expect(second.storedBytes).to.be.within(1, 200);
    expect(typed).to.deep.equal([]);
  });

  it('prunes manifests and the blobs only they named', async () => {
    await take('b-1');
    await writeFile(join(server.root, 'world', 'level.dat'), 'saves=2');
    await take('b-2');
    const store = new FsBlobStore(destination);
    const blobs = async () => {
      const all: string[] = [];
      for await (const b of store.listBlobs()) all.push(b);
      return all.length;
    };
    expect(await blobs()).to.equal(3);
    await backups.prune({ destinationPath: destination, backupIds: ['b-1', 'unknown'] });
    expect(await readdir(join(destination, 'manifests'))).to.deep.equal(['b-2.json']);
    expect(await blobs()).to.equal(2);
    await backups.prune({ destinationPath: join(dataDir, 'never-made'), backupIds: ['b-2'] });
  });

  it('refuses a relative destination, one inside the servers\' files, a bad backup id and an unknown server', async () => {
    expect((await failureOf(take('b-1', 'backups'))).code).to.equal('INVALID_PATH');
    expect((await failureOf(take('b-1', join(server.root, 'backups')))).code).to.equal('INVALID_PATH');
    expect((await failureOf(take('../b-1'))).code).to.equal('INVALID_REQUEST');
    expect((await failureOf(backups.backup({ serverId: '0190a5c4-0000-7000-8000-000000000002', backupId: 'b', destinationPath: destination, quiesce: false }, signal))).code).to.equal('NOT_FOUND');
  });
});
