import type { Logger } from '../../shared/logger.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Installer } from '../reconciler/installer.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import type { ServerRuntime } from '../runtime/runtime-types.js';
import { HashCaches } from './hash-caches.js';
import { LocalBackups } from './local-backups.js';
import { LocalStores } from './local-stores.js';
import { Quiescer } from './quiesce.js';
import { Snapshots } from './snapshots.js';
import { Stages } from './stages.js';

export interface BackupOperationDeps {
  dataDir: string;
  link: AgentLinkClient;
  reconciler: Reconciler;
  runtime: ServerRuntime;
  installer: Installer;
  logger: Logger;
  /** The address other Agents reach this one on (a migration's copy Agent to Agent binds there). */
  bindAddress: string;
  /** Made by the Agent before its reconciler, which asks it whether a server is held for a copy (it does not sleep then). */
  quiescer: Quiescer;
}

/** How long the Agent, stopping, waits for quiesced servers to resume and stages to go. */
const shutdownDeadlineMs = 10_000;

/**
 * The requests of backups, restores and migrations (snapshots, local backups, stages), registered
 * on the link. Answers: the Agent's shutdown, which resumes every quiesced server and removes
 * every stage.
 */
export async function registerBackupOperations(deps: BackupOperationDeps): Promise<{ shutdown(): Promise<void> }> {
  const { link, reconciler: host, logger } = deps;
  const { quiescer } = deps;
  const caches = new HashCaches();
  const stores = new LocalStores(deps.dataDir);
  const snapshots = new Snapshots({ host, quiescer, caches, logger, peerAddress: deps.bindAddress });
  const localBackups = new LocalBackups({ host, quiescer, caches, stores, now: () => new Date() });
  const stages = await Stages.open({ dataDir: deps.dataDir, host, installer: deps.installer, stores, logger });

  // Nobody is left to close them: a quiesced server must not wait for its lease to save again.
  link.onDisconnected(() => {
    snapshots.closeAll().catch((err: unknown) => logger.error({ err }, 'closing snapshots failed'));
  });

  link.handle('snapshotOpen', (input, ctx) => snapshots.open(input, ctx));
  link.handle('snapshotRead', async (input, ctx) => {
    const last = await snapshots.read(input, (chunk) => ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk }), ctx.signal);
    return { payload: 'fileChunk', fileChunk: last };
  });
  link.handle('snapshotUpload', async (input, ctx) => ({ payload: 'objectUploaded', objectUploaded: await snapshots.upload(input, ctx.signal) }));
  link.handle('snapshotServe', async (input) => ({ payload: 'snapshotServing', snapshotServing: { port: await snapshots.serve(input) } }));
  link.handle('snapshotHashes', async (input) => {
    await snapshots.learn(input);
    return {};
  });
  link.handle('snapshotClose', async ({ snapshotId }) => {
    await snapshots.close(snapshotId);
    return {};
  });
  link.handle('localBackup', async (input, ctx) => ({ payload: 'backupResult', backupResult: await localBackups.backup(input, ctx.signal) }));
  link.handle('localBackupPrune', async (input) => {
    await localBackups.prune(input);
    return {};
  });
  link.handle('stageBegin', async (input) => {
    await stages.begin(input);
    return {};
  });
  link.handle('stageWrite', async (input) => {
    await stages.write(input);
    return {};
  });
  link.handle('stageFetch', async (input, ctx) => {
    await stages.fetch(input, ctx.signal);
    return {};
  });
  link.handle('stagePull', async (input, ctx) => ({ payload: 'stagePulled', stagePulled: { bytes: await stages.pull(input, ctx.signal) } }));
  link.handle('stageRemove', async (input) => {
    await stages.remove(input);
    return {};
  });
  link.handle('stageFromLocal', async (input) => {
    await stages.fromLocal(input);
    return {};
  });
  link.handle('stageScan', ({ stageId }, ctx) => stages.scan(stageId, ctx));
  link.handle('stageCommit', async (input) => {
    await stages.commit(input);
    return {};
  });
  link.handle('stageCommitted', async ({ stageId }) => ({ payload: 'stageCommitState', stageCommitState: { committed: await stages.committed(stageId) } }));
  link.handle('stageAbort', async ({ stageId }) => {
    await stages.abort(stageId);
    return {};
  });

  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, shutdownDeadlineMs);
      });
      const work = Promise.allSettled([snapshots.closeAll(), stages.abortAll()]).then((results) => {
        for (const r of results) if (r.status === 'rejected') logger.error({ err: r.reason }, 'cleaning up backups at shutdown failed');
      });
      await Promise.race([work, deadline]);
      clearTimeout(timer);
    },
  };
}
