import { randomBytes, randomUUID } from 'node:crypto';
import type { ManifestEntry } from '../../../shared/backup/manifest.js';
import { isAgentRequestError } from '../../link/errors.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import { directTransferMs } from './direct-transfers.js';
import type { SnapshotSource } from './snapshot-source.js';
import type { StageSink } from './stage-sink.js';

/** How long the target may take to open a connection to the source before the copy goes through the Controller. */
export const peerConnectTimeoutMs = 3_000;
/** How long a grant lets the target open connections: it opens them as soon as it is told. */
const grantTtlMs = 60_000;
/** Files one grant and one StagePull carry at most, so neither message grows with the world. */
const filesPerPull = 500;

/** The Agents cannot copy between themselves (unreachable, or one too old to know how): the Controller carries the files. */
export class PeerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PeerUnavailable';
  }
}

/** The Agents' refusals that mean the copy must go another way: unreachable, or an Agent too old to know the request. */
export const peerCodes: ReadonlySet<string> = new Set(['PEER_UNREACHABLE', 'UNSUPPORTED']);

/** A refusal that means "not this way" rather than "not at all"; other failures stay as they are. */
async function orUnavailable<T>(work: Promise<T>, what: string): Promise<T> {
  try {
    return await work;
  } catch (e) {
    if (isAgentRequestError(e) && peerCodes.has(e.code)) throw new PeerUnavailable(`${what}: ${e.code} (${e.message})`);
    throw e;
  }
}

function* batches(files: readonly ManifestEntry[]): Iterable<ManifestEntry[]> {
  for (let at = 0; at < files.length; at += filesPerPull) yield files.slice(at, at + filesPerPull);
}

/**
 * Copies entries of a snapshot into a stage Agent to Agent: the directories are made through the
 * Controller (no content), then the target pulls the files from the source over TLS, with a grant
 * per batch of files: a fresh random key the Controller gives only to these two Agents over their
 * links, good for one snapshot, for opening connections during a minute. No byte of a file passes
 * through the Controller. Answers the bytes copied; PeerUnavailable when the Agents cannot reach
 * each other, before or during the copy. `calls` must leave the Agents' refusals as they are.
 */
export async function pullEntries(calls: NodeCalls, source: SnapshotSource, sink: StageSink, entries: readonly ManifestEntry[], expectManifest: boolean, sourceHost: string): Promise<number> {
  if (!sourceHost) throw new PeerUnavailable('the source Node\'s address is not known');
  for (const entry of entries) if (entry.type === 'DIRECTORY') await sink.directory(entry);
  let bytes = 0;
  for (const batch of batches(entries.filter((e) => e.type !== 'DIRECTORY'))) {
    const grantId = randomUUID();
    const key = randomBytes(32);
    const serving = await orUnavailable(calls.askNode(source.nodeId, {
      // The target checks each file against the sha256 the source sends with it.
      body: 'snapshotServe', snapshotServe: { snapshotId: source.id, grantId, key, ttlMs: grantTtlMs, unhashed: false },
    }, { timeoutMs: agentDeadlines.quick }), 'the source cannot serve its files');
    if (serving.payload !== 'snapshotServing') throw new Error('the Agent answered SnapshotServe without its port');
    const size = batch.reduce((n, e) => n + e.size, 0);
    const pulled = await orUnavailable(calls.askNode(sink.nodeId, {
      body: 'stagePull',
      stagePull: {
        stageId: sink.id, host: sourceHost, port: serving.snapshotServing.port, grantId, key, expectManifest, connectTimeoutMs: peerConnectTimeoutMs,
        files: batch.map((e) => ({ path: e.path, sha256: e.sha256, size: e.size, mode: e.mode })),
      },
    }, { timeoutMs: directTransferMs(size) }), 'the target cannot pull from the source');
    if (pulled.payload !== 'stagePulled') throw new Error('the Agent answered StagePull without the bytes it wrote');
    bytes += Number(pulled.stagePulled.bytes);
  }
  return bytes;
}
