import { AgentError } from '../errors.js';
import type { IdentityOf } from '../isolation/game-identity.js';
import type { Logger } from '../../shared/logger.js';
import type { AgentLinkClient } from '../link/link-client.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import { serverRoot } from '../reconciler/server-paths.js';
import { registerArchives } from './archives/register-archives.js';
import { movePath } from './file-move.js';
import { deletePath, listDirectory, makeDirectory, readFileRange } from './files.js';
import { ServerProperties } from './properties.js';
import { registerUploadSessions } from './register-upload-sessions.js';
import { Uploads } from './uploads.js';

export interface FilesDeps {
  dataDir: string;
  link: AgentLinkClient;
  reconciler: Reconciler;
  /** Each server's identity when games run as their own users: what the files API creates becomes theirs. */
  identityOf?: IdentityOf;
  logger: Logger;
}

/** What the Agent's stop ends: uploads of single requests half done, and the sweep of resumable ones. */
export interface FilesRegistered {
  stop(): Promise<void>;
}

/**
 * The operator's file requests (files and server.properties), registered on the link. Every one
 * names a server this Agent runs; each path is resolved inside that server's root.
 */
export function registerFiles(deps: FilesDeps): FilesRegistered {
  const { link, reconciler } = deps;
  const uploads = new Uploads();
  const properties = new ServerProperties();

  const ownerOf = (serverId: string) => deps.identityOf?.(serverId) ?? null;
  /** The file of the server's forwarding secret (the template's), as a path from its root. */
  const secretFileOf = (serverId: string) => {
    const file = reconciler.serverOnNode(serverId)?.template.network?.forwardingSecret?.file;
    return file?.split('/').filter((p) => p !== '' && p !== '.').join('/');
  };
  const rootOf = (serverId: string) => {
    if (!reconciler.runner(serverId)) throw new AgentError('NOT_FOUND', 'This Node does not run that server.');
    return serverRoot(deps.dataDir, serverId);
  };

  // Uploads begun over a link that is gone are nobody's any more.
  link.onDisconnected(() => void uploads.discardAll());

  link.handle('fileList', async ({ serverId, path }) => ({
    payload: 'fileEntries', fileEntries: { entries: await listDirectory(rootOf(serverId), path, secretFileOf(serverId)) },
  }));

  link.handle('fileRead', async ({ serverId, path, chunkBytes, offset, length }, ctx) => {
    const last = await readFileRange(rootOf(serverId), path, { offset, length, chunkBytes }, (chunk) => {
      ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk });
    }, ctx.signal, secretFileOf(serverId));
    return { payload: 'fileChunk', fileChunk: last };
  });

  link.handle('fileWriteChunk', async ({ serverId, path, uploadId, offset, data, last, abort, maxBytes }) => {
    if (abort) await uploads.discard(uploadId);
    else {
      const grew = await uploads.chunk({ root: rootOf(serverId), path, uploadId, offset, data, last, owner: ownerOf(serverId), room: reconciler.diskRoom(serverId), maxBytes });
      // The next upload is held against what this one left at once; the walk after it (never awaited: a big tree is slow) corrects the estimate.
      if (last) {
        reconciler.disk.grew(serverId, grew);
        void reconciler.measureDisk(serverId);
      }
    }
    return {};
  });

  link.handle('fileDelete', async ({ serverId, path }) => {
    await deletePath(rootOf(serverId), path);
    void reconciler.measureDisk(serverId);
    return {};
  });

  link.handle('fileMkdir', async ({ serverId, path }) => {
    await makeDirectory(rootOf(serverId), path, ownerOf(serverId));
    return {};
  });

  link.handle('fileMove', async ({ serverId, from, to }) => {
    await movePath(rootOf(serverId), from, to, secretFileOf(serverId));
    return {};
  });

  registerArchives({ link, reconciler, rootOf, ownerOf, secretFileOf });
  const stopSweep = registerUploadSessions({ dataDir: deps.dataDir, link, reconciler, logger: deps.logger, rootOf, ownerOf, secretFileOf });

  link.handle('propertiesGet', async ({ serverId }) => ({
    payload: 'properties', properties: { values: await properties.get(rootOf(serverId)) },
  }));

  link.handle('propertiesPatch', async ({ serverId, set, remove }) => ({
    payload: 'properties', properties: { values: await properties.patch(serverId, rootOf(serverId), set, remove, ownerOf(serverId)) },
  }));

  return {
    stop: async () => {
      stopSweep();
      await uploads.discardAll();
    },
  };
}
