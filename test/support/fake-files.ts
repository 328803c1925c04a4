import { createHash } from 'node:crypto';
import { AgentError } from '../../src/agent/errors.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { FakeAgent } from './fake-agent.js';

type Tree = Map<string, Buffer | 'DIRECTORY'>;

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function manifestOf(tree: Tree): ManifestEntry[] {
  return [...tree].sort(([a], [b]) => (a < b ? -1 : 1)).map(([path, content]) => content === 'DIRECTORY'
    ? { path, type: 'DIRECTORY', size: 0, mode: 0o755, sha256: '' }
    : { path, type: 'FILE', size: content.length, mode: 0o644, sha256: sha(content) });
}

/**
 * Snapshots and stages for a FakeAgent, in memory: each server's files on the Node, snapshots
 * of them, stages filled by StageWrite and checked by sha256 on the last chunk, commits that make
 * a stage the server's files, and removal when the Node is told a server is DELETED. `corrupt`
 * refuses every file's last chunk with CHECKSUM_MISMATCH; `commitGate` holds commits back.
 */
export class FakeFiles {
  readonly servers = new Map<string, Tree>();
  readonly commits: string[] = [];
  readonly aborted: string[] = [];
  corrupt = false;
  /** While set, commits wait for it (a commit still running when the Controller goes away). */
  commitGate?: Promise<void>;
  private readonly snapshots = new Map<string, Tree>();
  private readonly stages = new Map<string, { serverId: string; tree: Tree; writing: Map<string, Buffer[]> }>();

  constructor(agent: FakeAgent) {
    const { client } = agent;
    client.onDesiredState((state) => {
      for (const s of state.servers) if (s.desiredState === 'DESIRED_RUNTIME_STATE_DELETED') this.servers.delete(s.serverId);
    });
    client.onDesiredChange((serverId, server) => {
      if (server?.desiredState === 'DESIRED_RUNTIME_STATE_DELETED') this.servers.delete(serverId);
    });
    client.handle('snapshotOpen', async ({ serverId, snapshotId }) => {
      const tree = new Map(this.servers.get(serverId) ?? []);
      this.snapshots.set(snapshotId, tree);
      return { payload: 'snapshotManifest', snapshotManifest: { entries: manifestOf(tree) } };
    });
    client.handle('snapshotRead', async ({ snapshotId, path, offset, length }) => {
      const content = this.snapshots.get(snapshotId)?.get(path);
      if (!(content instanceof Buffer)) throw new AgentError('NOT_FOUND', `no file ${path}`);
      const end = Number(length) > 0 ? Math.min(content.length, Number(offset) + Number(length)) : content.length;
      return { payload: 'fileChunk', fileChunk: { offset: Number(offset), data: content.subarray(Number(offset), end), eof: end >= content.length, totalBytes: content.length } };
    });
    client.handle('snapshotClose', async ({ snapshotId }) => {
      this.snapshots.delete(snapshotId);
      return {};
    });
    client.handle('stageBegin', async ({ stageId, serverId }) => {
      this.stages.set(stageId, { serverId, tree: new Map(), writing: new Map() });
      return {};
    });
    client.handle('stageWrite', async (w) => {
      const stage = this.stage(w.stageId);
      if (w.directory) {
        stage.tree.set(w.path, 'DIRECTORY');
        return {};
      }
      const parts = stage.writing.get(w.path) ?? [];
      parts.push(Buffer.from(w.data));
      stage.writing.set(w.path, parts);
      if (!w.last) return {};
      stage.writing.delete(w.path);
      const data = Buffer.concat(parts);
      if (this.corrupt || sha(data) !== w.sha256) throw new AgentError('CHECKSUM_MISMATCH', `${w.path}: the content does not match its sha256`);
      stage.tree.set(w.path, data);
      return {};
    });
    client.handle('stageRemove', async ({ stageId, path }) => {
      const { tree } = this.stage(stageId);
      for (const key of [...tree.keys()]) if (key === path || key.startsWith(`${path}/`)) tree.delete(key);
      return {};
    });
    client.handle('stageScan', async ({ stageId }) => {
      return { payload: 'snapshotManifest', snapshotManifest: { entries: manifestOf(this.stage(stageId).tree) } };
    });
    client.handle('stageCommit', async ({ stageId, serverId }) => {
      await this.commitGate;
      this.servers.set(serverId, this.stage(stageId).tree);
      this.stages.delete(stageId);
      this.commits.push(serverId);
      return {};
    });
    client.handle('stageAbort', async ({ stageId }) => {
      this.stages.delete(stageId);
      this.aborted.push(stageId);
      return {};
    });
  }

  get openStages(): number {
    return this.stages.size;
  }

  /** Puts files on the Node as a server's own (what an install and the game would have written). */
  seed(serverId: string, files: Record<string, string>): void {
    const tree: Tree = new Map();
    for (const [path, content] of Object.entries(files)) {
      const parts = path.split('/');
      for (let i = 1; i < parts.length; i++) tree.set(parts.slice(0, i).join('/'), 'DIRECTORY');
      tree.set(path, Buffer.from(content));
    }
    this.servers.set(serverId, tree);
  }

  /** A server's files as text (directories left out). */
  files(serverId: string): Record<string, string> | undefined {
    const tree = this.servers.get(serverId);
    if (!tree) return undefined;
    return Object.fromEntries([...tree].flatMap(([path, content]) => (content === 'DIRECTORY' ? [] : [[path, content.toString()]])));
  }

  private stage(stageId: string) {
    const stage = this.stages.get(stageId);
    if (!stage) throw new AgentError('NOT_FOUND', `no stage ${stageId}`);
    return stage;
  }
}
