import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../src/agent/errors.js';
import { ArchiveReads } from '../../src/agent/files/archives/archive-reads.js';
import { archiveSources } from '../../src/agent/files/archives/archive-sources.js';
import { archiveStream } from '../../src/agent/files/archives/archive-writer.js';
import { movePath } from '../../src/agent/files/file-move.js';
import { deletePath, listDirectory, makeDirectory, readFileRange } from '../../src/agent/files/files.js';
import { ServerProperties } from '../../src/agent/files/properties.js';
import { Uploads } from '../../src/agent/files/uploads.js';
import type { FakeAgent } from './fake-agent.js';
import { handleFakeUploadSessions } from './fake-upload-sessions.js';

/**
 * The operator's requests (files, server.properties, console) for a FakeAgent: the Agent's own
 * file and properties code over a temporary directory per server, so paths the API lets through
 * meet the real checks of the Node. The console has no game behind it: a command to a server
 * desired RUNNING is taken, a subscription replays nothing.
 */
export class FakeOperations {
  private constructor(private readonly agent: FakeAgent, readonly dir: string) {}

  static async attach(agent: FakeAgent): Promise<FakeOperations> {
    const ops = new FakeOperations(agent, await mkdtemp(join(tmpdir(), 'cairn-fake-files-')));
    ops.register();
    return ops;
  }

  async dispose(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  private async rootOf(serverId: string): Promise<string> {
    if (!this.agent.desiredOf(serverId)) throw new AgentError('NOT_FOUND', 'This Node does not run that server.');
    const root = join(this.dir, serverId);
    await mkdir(join(root, '.cairn'), { recursive: true });
    return root;
  }

  private running(serverId: string): boolean {
    return this.agent.desiredOf(serverId)?.desiredState === 'DESIRED_RUNTIME_STATE_RUNNING';
  }

  private register(): void {
    const { client } = this.agent;
    const uploads = new Uploads();
    const properties = new ServerProperties();
    client.handle('fileList', async ({ serverId, path }) => ({
      payload: 'fileEntries', fileEntries: { entries: await listDirectory(await this.rootOf(serverId), path) },
    }));
    client.handle('fileRead', async ({ serverId, path, chunkBytes, offset, length }, ctx) => {
      const last = await readFileRange(await this.rootOf(serverId), path, { offset, length, chunkBytes }, (chunk) => {
        ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk });
      }, ctx.signal);
      return { payload: 'fileChunk', fileChunk: last };
    });
    client.handle('fileWriteChunk', async ({ serverId, path, uploadId, offset, data, last, abort }) => {
      if (abort) await uploads.discard(uploadId);
      else await uploads.chunk({ root: await this.rootOf(serverId), path, uploadId, offset, data, last });
      return {};
    });
    client.handle('fileDelete', async ({ serverId, path }) => {
      await deletePath(await this.rootOf(serverId), path);
      return {};
    });
    client.handle('fileMkdir', async ({ serverId, path }) => {
      await makeDirectory(await this.rootOf(serverId), path);
      return {};
    });
    client.handle('fileMove', async ({ serverId, from, to }) => {
      await movePath(await this.rootOf(serverId), from, to);
      return {};
    });
    handleFakeUploadSessions(client, join(this.dir, '.agent-data'), (serverId) => this.rootOf(serverId));
    const zips = new ArchiveReads();
    client.handle('fileArchiveRead', async ({ serverId, path, streamId, maxBytes }, ctx) => {
      const root = await this.rootOf(serverId);
      const last = await zips.read(streamId, maxBytes, async () => archiveStream(root, 'zip', await archiveSources(root, [path], undefined)),
        (chunk) => ctx.sendPart({ payload: 'fileChunk', fileChunk: chunk }));
      return { payload: 'fileChunk', fileChunk: last };
    });
    client.handle('propertiesGet', async ({ serverId }) => ({
      payload: 'properties', properties: { values: await properties.get(await this.rootOf(serverId)) },
    }));
    client.handle('propertiesPatch', async ({ serverId, set, remove }) => ({
      payload: 'properties', properties: { values: await properties.patch(serverId, await this.rootOf(serverId), set, remove) },
    }));
    client.handle('consoleCommand', async ({ serverId }) => {
      if (!this.running(serverId)) throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      return {};
    });
    client.handle('consoleSubscribe', async ({ serverId }) => {
      if (!this.running(serverId)) throw new AgentError('SERVER_NOT_RUNNING', 'The server is not running.');
      return { payload: 'consoleReplay', consoleReplay: { lines: [], entries: [], end: null } };
    });
    client.handle('consoleUnsubscribe', async () => ({}));
    client.handle('usageHistory', async ({ window }) => ({
      payload: 'usageSamples', usageSamples: { intervalMs: window === '6h' || window === '24h' ? 60_000 : 10_000, samples: [] },
    }));
  }
}
