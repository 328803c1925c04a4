import type { IdentityOf } from '../isolation/game-identity.js';
import type { AgentLinkClient } from '../link-client.js';
import { AgentError } from '../errors.js';
import type { Reconciler } from '../reconciler/reconciler.js';
import type { AgentServerState } from '../reconciler/server-machine.js';
import { serverRoot } from '../reconciler/server-paths.js';
import { isRuntimeError } from '../runtime/errors.js';
import type { ServerRuntime } from '../runtime/runtime-types.js';
import { ConsoleRelay } from './console-relay.js';
import { deletePath, listDirectory, makeDirectory, readFileRange } from './files.js';
import { movePath } from './file-move.js';
import { ServerProperties } from './properties.js';
import { commandTooLong, maxCommandBytes } from '../../shared/console-limits.js';
import { Uploads } from './uploads.js';
import { isUsageWindow } from '../status/usage-history.js';

export interface OperationDeps {
  dataDir: string;
  link: AgentLinkClient;
  reconciler: Reconciler;
  runtime: ServerRuntime;
  /** Each server's identity when games run as their own users: what the files API creates becomes theirs. */
  identityOf?: IdentityOf;
}


/**
 * The operator's requests (console, files, server.properties), registered on the link. Every one
 * names a server this Agent runs; each file path is resolved inside that server's root.
 */
export function registerOperations(deps: OperationDeps): { relay: ConsoleRelay; uploads: Uploads } {
  const { link, reconciler, runtime } = deps;
  const relay = new ConsoleRelay(runtime, {
    sendLine: (line) => link.sendConsoleLine(line),
    sendEnd: (end) => link.sendConsoleEnd(end),
  });
  const uploads = new Uploads();
  const properties = new ServerProperties();

  /** The server's reconciler state; undefined when this Node has no such server (yet). */
  const stateOf = (serverId: string): AgentServerState | undefined => reconciler.runner(serverId)?.actor.getSnapshot().value;
  const ownerOf = (serverId: string) => deps.identityOf?.(serverId) ?? null;
  /** The file of the server's forwarding secret (the template's), as a path from its root. */
  const secretFileOf = (serverId: string) => {
    const file = reconciler.serverOnNode(serverId)?.template.network?.forwardingSecret?.file;
    return file?.split('/').filter((p) => p !== '' && p !== '.').join('/');
  };
  const rootOf = (serverId: string) => {
    if (!stateOf(serverId)) throw new AgentError('NOT_FOUND', 'This Node does not run that server.');
    return serverRoot(deps.dataDir, serverId);
  };

  // What was asked over a link that is gone is nobody's any more: stop relaying, drop uploads.
  link.onDisconnected(() => {
    relay.unsubscribeAll();
    void uploads.discardAll();
  });

  link.handle('consoleCommand', async ({ serverId, command }) => {
    if (command.length === 0 || commandTooLong(command) || /[\r\n]/.test(command)) {
      throw new AgentError('INVALID_REQUEST', `A command is one line of 1 to ${maxCommandBytes} bytes.`);
    }
    if (stateOf(serverId) !== 'running') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
    try {
      await runtime.sendCommand(serverId, command);
    } catch (e) {
      if (isRuntimeError(e, 'not_running')) throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      throw e;
    }
    return {};
  });

  // A game that died leaves its last lines here: they are replayed, with how it ended, instead of a refusal.
  link.handle('consoleSubscribe', async ({ serverId, tail }) => {
    const state = stateOf(serverId);
    try {
      if (state !== 'running' && state !== 'starting') throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      const entries = await relay.subscribe(serverId, tail);
      return { payload: 'consoleReplay', consoleReplay: { lines: entries.map((e) => e.text), entries, end: null } };
    } catch (e) {
      const ended = state && e instanceof AgentError && e.code === 'SERVER_NOT_RUNNING' ? relay.ended(serverId, tail) : undefined;
      if (!ended) throw e;
      return { payload: 'consoleReplay', consoleReplay: ended };
    }
  });

  link.handle('consoleUnsubscribe', async ({ serverId }) => {
    await relay.unsubscribe(serverId);
    return {};
  });

  link.handle('fileList', async ({ serverId, path }) => ({
    payload: 'fileEntries', fileEntries: { entries: await listDirectory(rootOf(serverId), path, secretFileOf(serverId)) },
  }));

  link.handle('fileRead', async ({ serverId, path, chunkBytes, offset, length }, ctx) => {
    const last = await readFileRange(rootOf(serverId), path, { offset, length, chunkBytes }, (chunk) => {
      ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk });
    }, ctx.signal, secretFileOf(serverId));
    return { payload: 'fileChunk', fileChunk: last };
  });

  link.handle('fileWriteChunk', async ({ serverId, path, uploadId, offset, data, last, abort }) => {
    if (abort) await uploads.discard(uploadId);
    else {
      const grew = await uploads.chunk({ root: rootOf(serverId), path, uploadId, offset, data, last, owner: ownerOf(serverId), room: reconciler.diskRoom(serverId) });
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

  link.handle('propertiesGet', async ({ serverId }) => ({
    payload: 'properties', properties: { values: await properties.get(rootOf(serverId)) },
  }));

  link.handle('usageHistory', async ({ serverId, window }) => {
    const runner = reconciler.runner(serverId);
    if (!runner) throw new AgentError('NOT_FOUND', 'This Node does not run that server.');
    if (!isUsageWindow(window)) throw new AgentError('INVALID_REQUEST', `No usage window ${JSON.stringify(window)}: 10m, 1h, 6h or 24h.`);
    const { intervalMs, points } = runner.sampler.window(window);
    return {
      payload: 'usageSamples',
      usageSamples: {
        intervalMs,
        samples: points.map((p) => ({
          atUnixMs: p.atMs, cpuMillis: p.cpuMillis, memoryBytes: p.memoryBytes, players: p.players >= 0 ? { online: p.players, max: Math.max(p.playersMax, 0) } : null,
        })),
      },
    };
  });

  link.handle('propertiesPatch', async ({ serverId, set, remove }) => ({
    payload: 'properties', properties: { values: await properties.patch(serverId, rootOf(serverId), set, remove, ownerOf(serverId)) },
  }));

  return { relay, uploads };
}
