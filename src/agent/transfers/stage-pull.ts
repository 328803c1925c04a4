import type { PullFile } from '../../shared/link/generated/cairn/agent/v1/PullFile.js';
import { AgentError } from '../errors.js';
import { PeerUnreachable, PullConnection, unreachable, type PeerAddress } from '../../shared/peer/pull-client.js';
import { grantKeyBytes } from '../../shared/peer/tls-psk.js';
import type { StageFiles } from './stage-files.js';

/** Connections a pull opens at most: files in flight at once, as the Controller's own copy moves them. */
const connectionsPerPull = 4;

export interface PullInput {
  peer: PeerAddress;
  /** Each path already checked as a stage path. */
  files: PullFile[];
  expectManifest: boolean;
}

type Lock = <R>(path: string, work: () => Promise<R>) => Promise<R>;

/**
 * Fills files of a stage from another Agent's snapshot (StagePull), over a few connections at
 * once, each file written like the Controller's chunks and checked on its last one: against the
 * manifest when `expectManifest`, else against the sha256 the serving Agent computed of what it
 * sent. A failure stops the other connections and leaves nothing of an unfinished file in the
 * stage. Answers the bytes written.
 */
export async function pullIntoStage(files: StageFiles, input: PullInput, lock: Lock, signal: AbortSignal): Promise<number> {
  if (input.peer.key.length !== grantKeyBytes) throw new AgentError('INVALID_REQUEST', `key: ${grantKeyBytes} bytes.`);
  const queue = [...input.files];
  const open = new Set<PullConnection>();
  let failed = false;
  let bytes = 0;
  const worker = async () => {
    const connection = await PullConnection.open(input.peer, signal);
    open.add(connection);
    try {
      for (let file = queue.shift(); file && !failed; file = queue.shift()) {
        const current = file;
        const written = await lock(current.path, () => pullFile(files, connection, current, input));
        bytes += written;
      }
    } finally {
      open.delete(connection);
      connection.close();
    }
  };
  const onAbort = () => {
    failed = true;
    for (const connection of open) connection.close();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const results = await Promise.allSettled(Array.from({ length: Math.min(connectionsPerPull, queue.length) }, () => worker().catch((e: unknown) => {
      // The first failure ends the others' connections: they fail at once rather than finish their files.
      onAbort();
      throw e;
    })));
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason instanceof PeerUnreachable ? new AgentError('PEER_UNREACHABLE', failure.reason.message) : failure.reason;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return bytes;
}

/** What went wrong on the connection, told apart from what the stage refused. */
const asPeerFailure = (peer: PeerAddress, e: unknown) => (e instanceof AgentError || e instanceof PeerUnreachable ? e : unreachable(peer, `broke off (${e instanceof Error ? e.message : String(e)})`));

async function pullFile(files: StageFiles, connection: PullConnection, file: PullFile, input: PullInput): Promise<number> {
  const { path } = file;
  const size = Number(file.size);
  let offset = 0;
  try {
    for await (const frame of connection.file(path)) {
      if (frame.kind === 'failed') throw new AgentError('NOT_FOUND', `${path}: the serving Agent could not send it (${frame.message}).`);
      if (frame.kind === 'data') {
        if (input.expectManifest && offset + frame.data.length > size) {
          throw new AgentError('CHECKSUM_MISMATCH', `${path}: the serving Agent sent more than the manifest's ${size} bytes.`);
        }
        await files.write({ path, offset, data: frame.data, last: false, sha256: '', mode: 0, size: 0 });
        offset += frame.data.length;
        continue;
      }
      const sha256 = input.expectManifest ? file.sha256 : frame.sha256;
      await files.write({ path, offset, data: Buffer.alloc(0), last: true, sha256, mode: file.mode, size: input.expectManifest ? size : offset });
      return offset;
    }
    throw unreachable(input.peer, `ended ${path} without its end`);
  } catch (e) {
    await files.remove(path);
    throw asPeerFailure(input.peer, e);
  }
}
