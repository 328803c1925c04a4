import { AgentError } from '../../errors.js';
import type { GameIdentity } from '../../isolation/game-identity.js';
import type { AgentLinkClient } from '../../link/link-client.js';
import type { Reconciler } from '../../reconciler/reconciler.js';
import { ArchiveReads } from './archive-reads.js';
import { archiveSources } from './archive-sources.js';
import { archiveStream } from './archive-writer.js';
import { compressArchive } from './compress.js';
import { extractArchive } from './extract.js';

export interface ArchiveDeps {
  link: AgentLinkClient;
  reconciler: Reconciler;
  rootOf(serverId: string): string;
  ownerOf(serverId: string): GameIdentity | null;
  secretFileOf(serverId: string): string | undefined;
}

/** A compress reports its growing size at most this often. */
const progressEveryMs = 250;

/** Archive jobs (extract, compress) and zip downloads of folders, registered on the link. */
export function registerArchives(deps: ArchiveDeps): void {
  const { link, reconciler } = deps;
  const reads = new ArchiveReads();
  link.onDisconnected(() => reads.discardAll());

  link.handle('fileArchiveJob', async ({ serverId, kind, path, paths, into }, ctx) => {
    const root = deps.rootOf(serverId);
    const common = { root, owner: deps.ownerOf(serverId), room: reconciler.diskRoom(serverId), hidden: deps.secretFileOf(serverId), signal: ctx.signal };
    try {
      if (kind === 'EXTRACT') {
        let entries = 0;
        const done = await extractArchive({
          ...common, path, into: into || '.',
          progress: (written, bytes) => ctx.sendPart({ payload: 'archiveProgress', archiveProgress: { bytes, written: [written], entries: ++entries } }),
        });
        return { payload: 'archiveProgress', archiveProgress: { bytes: done.bytes, written: [], entries: done.entries } };
      }
      if (kind !== 'COMPRESS') throw new AgentError('INVALID_REQUEST', 'kind: EXTRACT or COMPRESS.');
      let last = 0;
      const done = await compressArchive({
        ...common, paths, into,
        progress: (bytes) => {
          if (Date.now() - last < progressEveryMs) return;
          last = Date.now();
          ctx.sendPart({ payload: 'archiveProgress', archiveProgress: { bytes, written: [], entries: 0 } });
        },
      });
      return { payload: 'archiveProgress', archiveProgress: { bytes: done.bytes, written: [into], entries: done.entries } };
    } finally {
      void reconciler.measureDisk(serverId);
    }
  });

  link.handle('fileArchiveRead', async ({ serverId, path, streamId, maxBytes, abort }, ctx) => {
    if (abort) {
      reads.discard(streamId);
      return {};
    }
    const root = deps.rootOf(serverId);
    const last = await reads.read(streamId, maxBytes, async () => archiveStream(root, 'zip', await archiveSources(root, [path], deps.secretFileOf(serverId))),
      (chunk) => ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk }));
    return { payload: 'fileChunk', fileChunk: last };
  });
}
