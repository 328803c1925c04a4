import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrantRefusedError } from '../../src/controller/link/blob-rpc.js';
import { AgentRequestError } from '../../src/controller/link/errors.js';
import type { NodeCalls } from '../../src/controller/link/node-calls.js';
import { BlobGrants } from '../../src/controller/services/backups/blob-grants.js';
import { pushBlob } from '../../src/controller/services/backups/blob-push.js';
import { ChecksumMismatchError } from '../../src/shared/backup/blob-store.js';
import { FsBlobStore } from '../../src/shared/backup/fs-blob-store.js';
import type { ManifestEntry } from '../../src/shared/backup/manifest.js';
import type { RequestBody, Response } from '../../src/shared/link/messages.js';

// Random, so the store keeps them as they are (one tag byte before them).
const content = randomBytes(4096);
const sha256 = createHash('sha256').update(content).digest('hex');
const entry: ManifestEntry = { path: 'world/r.0.0.mca', type: 'FILE', size: content.length, mode: 0o644, sha256 };
const ok = (r: Partial<Response>) => ({ requestId: 'r', ok: true, error: null, more: false, ...r }) as Response;

async function* pieces(...bytes: Buffer[]): AsyncIterable<Buffer> {
  yield* bytes;
}

/** What the Agent answers SnapshotPush with, given the grant the Controller sent. */
type Agent = (grant: { grantId: string; key: Buffer }) => Promise<Response>;

function callsOf(agent: Agent): { calls: NodeCalls; asked: RequestBody[] } {
  const asked: RequestBody[] = [];
  const calls = {
    askNode: async (_nodeId: string, body: RequestBody) => {
      asked.push(body);
      if (body.body !== 'snapshotPush') throw new Error(`unexpected ${body.body}`);
      return agent(body.snapshotPush.grant as { grantId: string; key: Buffer });
    },
  } as unknown as NodeCalls;
  return { calls, asked };
}

describe('blob grants and pushes: the Agent streams a file into the Controller\'s store with a grant for that blob alone', () => {
  let dir: string;
  let store: FsBlobStore;
  let linkReads: number;
  const snapshot = { nodeId: 'node-a', id: 'snap-1', read: (e: ManifestEntry) => (linkReads++, e.sha256 === sha256 ? pieces(content) : pieces()) };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cairn-blob-push-'));
    store = new FsBlobStore(dir);
    linkReads = 0;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the bytes the Agent streams with its grant, checked and flushed, and answers what was stored', async () => {
    const grants = new BlobGrants();
    const { calls, asked } = callsOf(async (grant) => ok({ payload: 'blobStored', blobStored: { storedBytes: await grants.receive('node-a', grant.grantId, grant.key, pieces(content.subarray(0, 5), content.subarray(5))) } }));
    const stored = await pushBlob(calls, grants, snapshot, entry, store);
    expect(stored).to.equal(content.length + 1);
    expect(asked).to.have.length(1);
    expect(linkReads).to.equal(0);
    expect(Buffer.concat(await readAll(store, sha256))).to.deep.equal(content);
  });

  it('refuses a wrong key, another Node, an expired or a used grant, all with one refusal, and stores nothing', async () => {
    let now = 1_000;
    const grants = new BlobGrants(() => now);
    const issued = grants.issue('node-a', sha256, store, 60_000);
    const wrongKey = Buffer.from(issued.key);
    wrongKey[0] ^= 1;
    await expectRefused(grants.receive('node-a', issued.grantId, wrongKey, pieces(content)));
    await expectRefused(grants.receive('node-a', issued.grantId, issued.key.subarray(0, 16), pieces(content)));
    await expectRefused(grants.receive('node-b', issued.grantId, issued.key, pieces(content)));
    await expectRefused(grants.receive('node-a', 'another-grant', issued.key, pieces(content)));
    now += 60_001;
    await expectRefused(grants.receive('node-a', issued.grantId, issued.key, pieces(content)));
    expect(issued.presented).to.equal(false);
    expect(await store.hasBlob(sha256)).to.equal(false);

    now = 1_000;
    const once = grants.issue('node-a', sha256, store, 60_000);
    await grants.receive('node-a', once.grantId, once.key, pieces(content));
    expect(once.presented).to.equal(true);
    expect(await once.stored).to.equal(content.length + 1);
    await expectRefused(grants.receive('node-a', once.grantId, once.key, pieces(content)));
  });

  it('a revoked grant is refused', async () => {
    const grants = new BlobGrants();
    const issued = grants.issue('node-a', sha256, store, 60_000);
    issued.revoke();
    await expectRefused(grants.receive('node-a', issued.grantId, issued.key, pieces(content)));
  });

  it('fails with the store\'s checksum mismatch when the bytes are not the blob\'s, leaving no blob', async () => {
    const grants = new BlobGrants();
    const { calls } = callsOf(async (grant) => {
      await grants.receive('node-a', grant.grantId, grant.key, pieces(Buffer.from('other bytes'))).catch(() => undefined);
      throw new AgentRequestError('CHECKSUM_MISMATCH', 'The file changed since the snapshot listed it.');
    });
    let failure: unknown;
    await pushBlob(calls, grants, snapshot, entry, store).catch((e: unknown) => (failure = e));
    expect(failure).to.be.instanceOf(ChecksumMismatchError);
    expect(linkReads).to.equal(0);
    expect(await store.hasBlob(sha256)).to.equal(false);
    expect((await readdir(dir, { recursive: true })).filter((n) => n.endsWith('.partial'))).to.deep.equal([]);
  });

  for (const code of ['UNSUPPORTED', 'PUSH_REFUSED']) {
    it(`reads the file over the link when the Agent answers ${code} without presenting the grant (an older Agent, or a push that reached another Controller)`, async () => {
      const grants = new BlobGrants();
      let grantOf: { grantId: string; key: Buffer } | undefined;
      const { calls } = callsOf(async (grant) => {
        grantOf = grant;
        throw new AgentRequestError(code, 'not this way');
      });
      expect(await pushBlob(calls, grants, snapshot, entry, store)).to.equal(content.length + 1);
      expect(linkReads).to.equal(1);
      // The grant ended with the request: it cannot be used afterwards.
      await expectRefused(grants.receive('node-a', grantOf!.grantId, grantOf!.key, pieces(content)));
    });
  }

  it('fails as the Agent said, without reading over the link, for any other refusal', async () => {
    const grants = new BlobGrants();
    const { calls } = callsOf(async () => {
      throw new AgentRequestError('NOT_FOUND', 'path: not a file of this snapshot.');
    });
    let failure: unknown;
    await pushBlob(calls, grants, snapshot, entry, store).catch((e: unknown) => (failure = e));
    expect(failure).to.be.instanceOf(AgentRequestError).with.property('code', 'NOT_FOUND');
    expect(linkReads).to.equal(0);
  });

  it('does not take an Agent\'s word that it pushed when the grant never came', async () => {
    const grants = new BlobGrants();
    const { calls } = callsOf(async () => ok({ payload: 'blobStored', blobStored: { storedBytes: 4097 } }));
    let failure: unknown;
    await pushBlob(calls, grants, snapshot, entry, store).catch((e: unknown) => (failure = e));
    expect(String(failure)).to.match(/without presenting its grant/);
  });
});

async function expectRefused(work: Promise<unknown>): Promise<void> {
  let failure: unknown;
  await work.catch((e: unknown) => (failure = e));
  expect(failure).to.be.instanceOf(GrantRefusedError);
}

async function readAll(store: FsBlobStore, sha: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of store.readBlob(sha)) out.push(c as Buffer);
  return out;
}
