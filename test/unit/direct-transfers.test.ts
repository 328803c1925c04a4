import { expect } from 'chai';
import { Readable } from 'node:stream';
import { AgentRequestError } from '../../src/controller/link/errors.js';
import type { NodeCalls } from '../../src/controller/link/node-calls.js';
import { directTransferMs, fetchDirect, uploadDirect } from '../../src/controller/services/transfers/direct-transfers.js';
import type { SnapshotSource } from '../../src/controller/services/transfers/snapshot-source.js';
import type { StageSink } from '../../src/controller/services/transfers/stage-sink.js';
import type { BlobStore } from '../../src/shared/backup/blob-store.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { RequestBody, Response } from '../../src/shared/link/messages.js';
import type { DirectBlobs, UploadPlan } from '../../src/controller/store/direct-blobs.js';

const entry: ManifestEntry = { path: 'world/r.0.0.mca', type: 'FILE', size: 50_000_000, mode: 0o644, sha256: 'a'.repeat(64) };

/** What the fakes saw, in order. */
type Seen = string[];

function fakeCalls(seen: Seen, answer: (body: RequestBody) => Response): { calls: NodeCalls; asked: { body: RequestBody; timeoutMs: number }[] } {
  const asked: { body: RequestBody; timeoutMs: number }[] = [];
  const calls = {
    askNode: async (nodeId: string, body: RequestBody, options: { timeoutMs: number }) => {
      seen.push(`ask ${nodeId} ${body.body}`);
      asked.push({ body, timeoutMs: options.timeoutMs });
      return answer(body);
    },
  } as unknown as NodeCalls;
  return { calls, asked };
}

function fakeStore(seen: Seen): BlobStore & DirectBlobs & { expiries: number[] } {
  const expiries: number[] = [];
  const plan = (): UploadPlan => ({
    partBytes: 8 * 1024 * 1024,
    urls: ['http://store/part-1', 'http://store/part-2'],
    complete: async (etags) => void seen.push(`complete ${etags.join(',')}`),
    abort: async () => void seen.push('abort'),
  });
  return {
    expiries,
    planUpload: async (_sha: string, _size: number, expires: number) => (expiries.push(expires), plan()),
    downloadUrl: async (_sha: string, expires: number) => (expiries.push(expires), 'http://store/blob'),
    putBlob: async (_sha: string, content: AsyncIterable<Uint8Array>) => {
      let bytes = 0;
      for await (const c of content) bytes += c.length;
      seen.push(`putBlob ${bytes}`);
      return bytes;
    },
    readBlob: () => (seen.push('readBlob'), Readable.from([Buffer.from('blob')])),
  } as unknown as BlobStore & DirectBlobs & { expiries: number[] };
}

const snapshot = { nodeId: 'node-a', id: 'snap-1', read: async function* () { yield Buffer.alloc(3); } } as unknown as SnapshotSource;
const ok = (r: Partial<Response>) => ({ requestId: 'r', ok: true, error: null, more: false, ...r }) as Response;

describe('direct transfers: the Agent moves the bytes with presigned requests, the Controller completes or aborts', () => {
  it('completes the upload with the ETags the Agent answered; its deadline and the URLs\' lifetime follow the file\'s size', async () => {
    const seen: Seen = [];
    const { calls, asked } = fakeCalls(seen, () => ok({ payload: 'objectUploaded', objectUploaded: { storedBytes: 123, etags: ['"e1"', '"e2"'] } }));
    const store = fakeStore(seen);
    expect(await uploadDirect(calls, snapshot, entry, store)).to.equal(123);
    expect(seen).to.deep.equal(['ask node-a snapshotUpload', 'complete "e1","e2"']);
    expect(asked[0].timeoutMs).to.equal(directTransferMs(entry.size)).and.equal(70_000);
    expect(store.expiries).to.deep.equal([70 + 300]);
    expect(asked[0].body).to.deep.include({ snapshotUpload: { snapshotId: 'snap-1', path: entry.path, sha256: entry.sha256, partBytes: 8 * 1024 * 1024, partUrls: ['http://store/part-1', 'http://store/part-2'] } });
  });

  it('asks for URLs that live an hour at most, however large the file', async () => {
    const seen: Seen = [];
    const { calls } = fakeCalls(seen, () => ok({ payload: 'objectUploaded', objectUploaded: { storedBytes: 1, etags: ['"e1"'] } }));
    const store = fakeStore(seen);
    const huge = { ...entry, size: 50 * 1024 ** 3 };
    await uploadDirect(calls, snapshot, huge, store);
    expect(store.expiries).to.deep.equal([3600]);
  });

  it('aborts the upload when the Agent fails it, and the failure stays the Agent\'s', async () => {
    const seen: Seen = [];
    const { calls } = fakeCalls(seen, () => {
      throw new AgentRequestError('CHECKSUM_MISMATCH', 'changed');
    });
    const failure = await uploadDirect(calls, snapshot, entry, fakeStore(seen)).catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(AgentRequestError).and.include({ code: 'CHECKSUM_MISMATCH' });
    expect(seen).to.deep.equal(['ask node-a snapshotUpload', 'abort']);
  });

  it('an Agent that does not know the request gets the Controller-carried path (upload and fetch)', async () => {
    const seen: Seen = [];
    const { calls } = fakeCalls(seen, (body) => {
      throw new AgentRequestError('UNSUPPORTED', `This Agent does not handle ${body.body} requests.`);
    });
    expect(await uploadDirect(calls, snapshot, entry, fakeStore(seen))).to.equal(3);
    expect(seen).to.deep.equal(['ask node-a snapshotUpload', 'abort', 'putBlob 3']);

    seen.length = 0;
    const written: string[] = [];
    const stage = { nodeId: 'node-b', id: 'stage-1', writeFile: async (e: ManifestEntry, content: AsyncIterable<Buffer>, expectManifest: boolean) => {
      for await (const c of content) written.push(`${e.path} ${c.toString()} ${expectManifest}`);
      return 4;
    } } as unknown as StageSink;
    await fetchDirect(calls, stage, entry, fakeStore(seen));
    expect(seen).to.deep.equal(['ask node-b stageFetch', 'readBlob']);
    expect(written).to.deep.equal([`${entry.path} blob true`]);
  });

  it('a fetch asks the stage\'s Agent for the file with one presigned GET', async () => {
    const seen: Seen = [];
    const { calls, asked } = fakeCalls(seen, () => ok({}));
    const stage = { nodeId: 'node-b', id: 'stage-1' } as unknown as StageSink;
    await fetchDirect(calls, stage, entry, fakeStore(seen));
    expect(asked[0].body).to.deep.include({ stageFetch: { stageId: 'stage-1', path: entry.path, url: 'http://store/blob', sha256: entry.sha256, size: entry.size, mode: 0o644 } });
    expect(asked[0].timeoutMs).to.equal(70_000);
  });
});
