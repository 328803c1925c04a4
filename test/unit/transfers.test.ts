import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { RequestBody, Response } from '../../src/shared/link/messages.js';
import type { CallOptions, NodeCalls } from '../../src/controller/link/node-calls.js';
import { copyEntries } from '../../src/controller/services/transfers/copy.js';
import { SnapshotSource } from '../../src/controller/services/transfers/snapshot-source.js';
import { StageSink } from '../../src/controller/services/transfers/stage-sink.js';

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ok = (extra: Partial<Response> = {}): Response => ({ requestId: 'r', ok: true, error: null, more: false, ...extra }) as Response;

/** An in-memory Agent for one snapshot and one stage: answers as the link does, records what it was asked. */
class MemoryAgent {
  readonly asked: RequestBody['body'][] = [];
  readonly staged = new Map<string, { data: Buffer; mode: number } | 'DIRECTORY'>();
  private readonly writing = new Map<string, Buffer[]>();
  maxInFlightBytes = 0;
  constructor(readonly files: Map<string, Buffer>) {}

  readonly calls = {
    askNode: async (_node: string | undefined, body: RequestBody, options: CallOptions): Promise<Response> => {
      this.asked.push(body.body);
      if (body.body === 'snapshotOpen') {
        const entries = [{ path: 'world', type: 'DIRECTORY', size: 0, mode: 0o755, sha256: '' },
          ...[...this.files].map(([path, data]) => ({ path, type: 'FILE', size: data.length, mode: 0o644, sha256: sha(data) }))];
        options.onPart?.(ok({ more: true, payload: 'snapshotManifest', snapshotManifest: { entries: entries.slice(0, 1) } }));
        return ok({ payload: 'snapshotManifest', snapshotManifest: { entries: entries.slice(1) } });
      }
      if (body.body === 'snapshotRead') {
        const { path, offset, length, chunkBytes } = body.snapshotRead;
        const data = this.files.get(path)!;
        const end = Math.min(data.length, Number(offset) + Number(length));
        this.maxInFlightBytes = Math.max(this.maxInFlightBytes, end - Number(offset));
        const parts: Response[] = [];
        for (let at = Number(offset); at < end || parts.length === 0; at += chunkBytes) {
          const piece = data.subarray(at, Math.min(end, at + chunkBytes));
          parts.push(ok({ more: true, payload: 'fileChunk', fileChunk: { offset: at, data: piece, eof: at + piece.length >= data.length, totalBytes: data.length } }));
        }
        parts.slice(0, -1).forEach((p) => options.onPart?.(p));
        return { ...parts[parts.length - 1], more: false };
      }
      if (body.body === 'stageWrite') {
        const w = body.stageWrite;
        if (w.directory) { this.staged.set(w.path, 'DIRECTORY'); return ok(); }
        expect(w.data.length).to.be.at.most(MiB);
        const parts = this.writing.get(w.path) ?? [];
        parts.push(Buffer.from(w.data));
        this.writing.set(w.path, parts);
        if (w.last) {
          const data = Buffer.concat(parts);
          this.writing.delete(w.path);
          if (sha(data) !== w.sha256 || data.length !== Number(w.size)) throw new Error('CHECKSUM_MISMATCH');
          this.staged.set(w.path, { data, mode: w.mode });
        }
        return ok();
      }
      return ok();
    },
  } as unknown as NodeCalls;
}

describe('transfers: a snapshot copied into a stage', () => {
  it('copies every file byte for byte in chunks of at most 1 MiB, reading at most 4 MiB ahead', async () => {
    const files = new Map([['world/r.0.mca', randomBytes(9 * MiB + 17)], ['world/empty', Buffer.alloc(0)], ['server.properties', Buffer.from('motd=x\n')]]);
    const agent = new MemoryAgent(files);
    const source = await SnapshotSource.open(agent.calls, 'n1', 's1', { quiesce: true });
    expect(source.entries.map((e: ManifestEntry) => e.path)).to.deep.equal(['world', 'world/r.0.mca', 'world/empty', 'server.properties']);
    const sink = await StageSink.begin(agent.calls, 'n2', 's1');
    const bytes = await copyEntries(source, sink, source.entries, true);
    await source.close();
    expect(bytes).to.equal(9 * MiB + 17 + 7);
    expect(agent.staged.get('world')).to.equal('DIRECTORY');
    for (const [path, data] of files) expect((agent.staged.get(path) as { data: Buffer }).data.equals(data), path).to.equal(true);
    expect(agent.maxInFlightBytes).to.be.at.most(4 * MiB);
    expect(agent.asked.filter((b) => b === 'snapshotRead').length).to.equal(3 + 1 + 1);
    expect(agent.asked.at(-1)).to.equal('snapshotClose');
  });

  it('a file that changed after the manifest fails when the manifest is expected, and is staged as read otherwise', async () => {
    const files = new Map([['level.dat', Buffer.from('before')]]);
    const agent = new MemoryAgent(files);
    const source = await SnapshotSource.open(agent.calls, 'n1', 's1', { quiesce: false });
    files.set('level.dat', Buffer.from('after!'));
    const sink = await StageSink.begin(agent.calls, 'n2', 's1');
    let error: unknown;
    await copyEntries(source, sink, source.entries, true).catch((e: unknown) => { error = e; });
    expect(String(error)).to.include('CHECKSUM_MISMATCH');
    await copyEntries(source, sink, source.entries, false);
    expect((agent.staged.get('level.dat') as { data: Buffer }).data.toString()).to.equal('after!');
  });
});
