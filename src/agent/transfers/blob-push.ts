import type { Readable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import type { BlobPieceInput, BlobStored } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';

/** Opens PutBlob to the Controller that asked (AgentLinkClient.putBlob). */
export type OpenPutBlob = (signal: AbortSignal, answered: grpc.requestCallback<BlobStored>) => grpc.ClientWritableStream<BlobPieceInput> | undefined;

export interface PushGrant {
  grantId: string;
  key: Buffer;
}

/**
 * The Controller's refusals that mean the bytes did not go into its store for a reason of the way,
 * not of the file: PUSH_REFUSED tells it to read the file over the link instead.
 */
const refusedWays: ReadonlySet<grpc.status> = new Set([grpc.status.PERMISSION_DENIED, grpc.status.UNIMPLEMENTED, grpc.status.UNAUTHENTICATED]);

function agentErrorOf(e: grpc.ServiceError): AgentError {
  if (refusedWays.has(e.code)) return new AgentError('PUSH_REFUSED', `The Controller refused the upload: ${e.details}`);
  if (e.code === grpc.status.DATA_LOSS) return new AgentError('CHECKSUM_MISMATCH', `The file changed since the snapshot listed it (${e.details}).`);
  return new AgentError('PUSH_FAILED', `The upload to the Controller failed: ${e.details || e.message}`);
}

/**
 * Streams a file, as it is, into the Controller's store (SnapshotPush): the grant, then the bytes
 * in the pieces they are read in, each read only once the piece before it went to the connection
 * (gRPC's flow control then holds the file's reads to the Controller's writes). The Controller checks the sha256 and
 * answers once the blob is on its disk; answers the bytes its store added.
 */
export async function pushBlob(open: OpenPutBlob, content: Readable, grant: PushGrant, signal: AbortSignal): Promise<number> {
  let answered!: (e: grpc.ServiceError | null, value?: BlobStored) => void;
  const seen = { answer: false };
  const answer = new Promise<BlobStored>((resolve, reject) => {
    answered = (e, value) => {
      seen.answer = true;
      if (e) reject(agentErrorOf(e));
      else resolve(value!);
    };
  });
  // The answer is awaited below; a refusal that comes while bytes are still being written is read there.
  answer.catch(() => undefined);
  const call = open(signal, (e, value) => answered(e, value));
  if (!call) {
    throw new AgentError('PUSH_REFUSED', 'The Agent is not connected to a Controller.');
  }
  // Failures reach the answer; the stream's own error event has nothing more to say.
  call.on('error', () => undefined);
  try {
    call.write({ grant });
    // One piece going to the connection while the next is read: more held per call is garbage waiting
    // in memory (with the stream buffering its 16 pieces, eight calls at once grew the Agent by
    // 95 MiB), fewer would leave the connection idle between pieces.
    let queued: Promise<unknown> = Promise.resolve();
    for await (const data of content as AsyncIterable<Buffer>) {
      await Promise.race([queued, answer]);
      queued = new Promise<void>((resolve) => call.write({ data }, () => resolve()));
    }
    await Promise.race([queued, answer]);
    call.end();
  } catch (e) {
    // The Controller's refusal (it ends the call) says more than the write that found the call closed.
    if (seen.answer) await answer;
    call.cancel();
    throw e;
  }
  return Number((await answer).storedBytes);
}
