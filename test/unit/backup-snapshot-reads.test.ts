import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupHost } from '../../src/agent/transfers/backup-host.js';
import { HashCaches } from '../../src/agent/transfers/hash-caches.js';
import { Quiescer } from '../../src/agent/transfers/quiesce.js';
import { Snapshots } from '../../src/agent/transfers/snapshots.js';
import type { ServerOnNode } from '../../src/agent/reconciler/reconciler.js';
import type { NodeCalls } from '../../src/controller/link/node-calls.js';
import { SnapshotReads, type ReadPath } from '../../src/controller/services/transfers/snapshot-reads.js';
import { SnapshotSource } from '../../src/controller/services/transfers/snapshot-source.js';
import type { RequestBody, Response } from '../../src/shared/link/messages.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Template } from '../../src/shared/templates.js';

const serverId = '0190a5c4-0000-7000-8000-0000000000aa';
const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * A TCP relay in front of the Agent's snapshot server that can cut every connection once a given
 * number of bytes has gone to the Controller: a network that breaks mid-file.
 */
class Relay {
  cutAfter = Infinity;
  private sent = 0;
  private readonly sockets = new Set<Socket>();
  private constructor(readonly server: Server) {}

  static async start(target: number): Promise<Relay> {
    const relay = new Relay(createServer());
    relay.server.on('connection', (client) => {
      const agent = connect(target, '127.0.0.1');
      for (const s of [client, agent]) {
        relay.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => relay.sockets.delete(s));
      }
      client.pipe(agent);
      agent.on('data', (data: Buffer) => {
        relay.sent += data.length;
        if (relay.sent > relay.cutAfter) {
          relay.cutAfter = Infinity;
          for (const s of relay.sockets) s.destroy();
          return;
        }
        client.write(data);
      });
    });
    relay.server.listen(0, '127.0.0.1');
    await once(relay.server, 'listening');
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }
}

describe('SnapshotReads: a backup reads the files straight from the Agent, and over the link when that breaks', function () {
  this.timeout(20_000);
  let base: string;
  let root: string;
  let snapshots: Snapshots;
  let relay: Relay | undefined;
  /** Where the relay of the next snapshot cuts its connections. */
  let cutAfter = Infinity;
  const world = new Map<string, Buffer>();

  /** NodeCalls answered by an in-process Agent's snapshots, as the link would; the snapshot server is reached through the relay. */
  const calls = {
    askNode: async (_nodeId: string, body: RequestBody, options: { onPart?: (r: Response) => void }): Promise<Response> => {
      const signal = new AbortController().signal;
      const part = (r: Response) => options.onPart?.(r);
      switch (body.body) {
        case 'snapshotOpen':
          return snapshots.open(body.snapshotOpen, { sendPart: (p) => part(p as Response), signal }) as Promise<Response>;
        case 'snapshotRead':
          return { payload: 'fileChunk', fileChunk: await snapshots.read(body.snapshotRead, (chunk) => part({ payload: 'fileChunk', fileChunk: chunk } as Response), signal) } as Response;
        case 'snapshotServe': {
          relay ??= await Relay.start(await snapshots.serve(body.snapshotServe));
          relay.cutAfter = cutAfter;
          return { payload: 'snapshotServing', snapshotServing: { port: relay.port } } as Response;
        }
        case 'snapshotHashes':
          await snapshots.learn(body.snapshotHashes);
          return {} as Response;
        case 'snapshotClose':
          await snapshots.close(body.snapshotClose.snapshotId);
          return {} as Response;
        default:
          throw new Error(`not asked in this test: ${body.body}`);
      }
    },
  } as unknown as NodeCalls;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'cairn-snapshot-reads-'));
    root = join(base, 'root');
    await mkdir(join(root, 'world'), { recursive: true });
    world.clear();
    for (let i = 0; i < 6; i++) world.set(`world/r.${i}.mca`, randomBytes(3 * MiB + i));
    for (const [path, content] of world) await writeFile(join(root, path), content);
    const server = { root, running: false, template: {} as Template } as ServerOnNode;
    const host: BackupHost = { serverOnNode: (id) => (id === serverId ? server : undefined), replaceFiles: async () => undefined };
    snapshots = new Snapshots({ host, quiescer: new Quiescer({} as never, silentLogger), caches: new HashCaches(), logger: silentLogger, peerAddress: '127.0.0.1' });
    relay = undefined;
    cutAfter = Infinity;
  });

  afterEach(async () => {
    relay?.close();
    await snapshots.closeAll();
    await rm(base, { recursive: true, force: true });
  });

  /**
   * Every file put through `reads` at once, as a first backup stores them (each entry then takes
   * the sha256 of what arrived, which the Agent is told); answers each one's content as the store
   * saw it, and the bytes by path.
   */
  const readAll = async (host: string) => {
    const snapshot = await SnapshotSource.open(calls, 'node-1', serverId, { quiesce: false, unhashed: true });
    const counted: Record<ReadPath, number> = { direct: 0, link: 0 };
    const reads = await SnapshotReads.open(calls, snapshot, host, silentLogger, (path, bytes) => {
      counted[path] += bytes;
    });
    const got = new Map<string, Buffer>();
    try {
      const files = snapshot.entries.filter((e) => e.type === 'FILE');
      await Promise.all(files.map((entry) => reads.put(entry, async (content) => {
        const chunks: Buffer[] = [];
        for await (const chunk of content) chunks.push(chunk);
        got.set(entry.path, Buffer.concat(chunks));
        entry.sha256 = sha256(got.get(entry.path)!);
      })));
      await reads.tellHashes(files);
    } finally {
      reads.close();
      await snapshot.close();
    }
    return { got, counted };
  };

  /** The hashes the Agent knows for its next snapshot (an unhashed one lists only those). */
  const known = async () => {
    const snapshot = await SnapshotSource.open(calls, 'node-1', serverId, { quiesce: false, unhashed: true });
    await snapshot.close();
    return Object.fromEntries(snapshot.entries.filter((e) => e.type === 'FILE').map((e) => [e.path, e.sha256]));
  };
  const worldHashes = () => Object.fromEntries([...world].map(([path, content]) => [path, sha256(content)]));

  it('reads every file straight from the Agent, byte for byte, nothing over the link', async () => {
    const { got, counted } = await readAll('127.0.0.1');
    for (const [path, content] of world) expect(sha256(got.get(path)!), path).to.equal(sha256(content));
    expect(counted.link).to.equal(0);
    expect(counted.direct).to.equal([...world.values()].reduce((n, b) => n + b.length, 0));
    // The Agent hashed none of it, and learnt every hash from the Controller for its next scan.
    expect(await known()).to.deep.equal(worldHashes());
  });

  it('the Agent keeps a hash it is told only for a file it sent whole, unchanged, without hashing it', async () => {
    const snapshot = await SnapshotSource.open(calls, 'node-1', serverId, { quiesce: false, unhashed: true });
    try {
      // Nothing was sent yet: told hashes (right or wrong) are ignored.
      await snapshot.tellHashes([...world].map(([path, content]) => ({ path, sha256: sha256(content) })));
    } finally {
      await snapshot.close();
    }
    expect(Object.values(await known()).filter(Boolean)).to.deep.equal([]);
  });

  it('gives a file whose connection broke off to the store again over the link, and reads the rest that way', async () => {
    // Cut once the first MiBs have gone by: mid-file for the files under way.
    cutAfter = 2 * MiB;
    const { got, counted } = await readAll('127.0.0.1');
    for (const [path, content] of world) expect(sha256(got.get(path)!), path).to.equal(sha256(content));
    expect(counted.direct).to.be.greaterThan(0);
    expect(counted.link).to.be.at.least(3 * MiB);
    // Learnt either way: from the Controller for files sent whole, as the link read them for the rest.
    expect(await known()).to.deep.equal(worldHashes());
  });

  it('reads over the link when nothing answers at the Agent\'s address', async () => {
    const { got, counted } = await readAll('127.0.0.2');
    for (const [path, content] of world) expect(sha256(got.get(path)!), path).to.equal(sha256(content));
    expect(counted.direct).to.equal(0);
  });
});
