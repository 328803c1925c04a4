import * as grpc from '@grpc/grpc-js';
import { ChecksumMismatchError } from '../../shared/backup/blob-store.js';
import type { AgentLinkHandlers } from '../../shared/link/proto.js';
import type { Logger } from '../../shared/logger.js';
import type { AgentGate } from './agent-gate.js';
import { ConnectRefusedError } from './errors.js';

/** A grant that is unknown, used, expired or another Node's: one refusal for all, so trying teaches nothing. */
export class GrantRefusedError extends Error {
  constructor() {
    super('no such grant for this Node (unknown, used or expired)');
    this.name = 'GrantRefusedError';
  }
}

/** Stores the bytes an Agent streams with a grant it was given (services/backups/blob-grants.ts). */
export interface BlobReceiver {
  /** Answers the bytes the store added; GrantRefusedError before reading any byte, ChecksumMismatchError when they are not the blob's. */
  receive(nodeId: string, grantId: string, key: Buffer, pieces: AsyncIterable<Buffer>): Promise<number>;
}

type PutBlobCall = Parameters<AgentLinkHandlers['PutBlob']>[0];
type PutBlobCallback = Parameters<AgentLinkHandlers['PutBlob']>[1];

/** The pieces after the grant, as bytes; any other piece is a broken client. */
async function* dataOf(pieces: AsyncIterator<{ piece?: string; data?: Buffer }>): AsyncIterable<Buffer> {
  for (;;) {
    const next = await pieces.next();
    if (next.done) return;
    if (next.value.piece !== 'data' || !next.value.data) throw new Error('a PutBlob piece after the first that is not data');
    yield next.value.data;
  }
}

/**
 * `PutBlob`: the Node credential is checked exactly as on Connect, then the grant in the first
 * piece, then the bytes go into the store as they arrive (gRPC's flow control holds the Agent back
 * while the disk is slower). Neither the grant's key nor the bytes are ever logged.
 */
export async function receiveBlob(call: PutBlobCall, callback: PutBlobCallback, credential: string, deps: { gate: AgentGate; blobs?: BlobReceiver; logger: Logger }): Promise<void> {
  const fail = (code: grpc.status, details: string) => callback({ code, details });
  let nodeId: string;
  try {
    nodeId = await deps.gate.authenticate(credential);
  } catch (e) {
    if (!(e instanceof ConnectRefusedError)) deps.logger.error({ err: e }, 'authenticating a blob upload failed');
    return fail(grpc.status.UNAUTHENTICATED, `upload refused: ${e instanceof ConnectRefusedError ? e.reason : 'internal'}`);
  }
  if (!deps.blobs) return fail(grpc.status.UNIMPLEMENTED, 'this Controller takes no blob uploads');
  const pieces = (call as AsyncIterable<{ piece?: string; grant?: { grantId: string; key: Buffer } | null; data?: Buffer }>)[Symbol.asyncIterator]();
  try {
    const first = await pieces.next();
    if (first.done || first.value.piece !== 'grant' || !first.value.grant) return fail(grpc.status.INVALID_ARGUMENT, 'the first piece must be the grant');
    const grant = first.value.grant;
    callback(null, { storedBytes: await deps.blobs.receive(nodeId, grant.grantId, grant.key, dataOf(pieces)) });
  } catch (e) {
    if (e instanceof GrantRefusedError) return fail(grpc.status.PERMISSION_DENIED, e.message);
    if (e instanceof ChecksumMismatchError) return fail(grpc.status.DATA_LOSS, e.message);
    // A client that went away mid-stream is no fault of the Controller's, but it is worth a line.
    deps.logger.warn({ event: 'blob_upload_failed', nodeId, reason: (e as Error).message }, 'a blob upload from a Node failed');
    fail(grpc.status.INTERNAL, `storing the blob failed: ${(e as Error).message}`);
  }
}
