import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobDecoder } from '../../shared/backup/blob-encoding.js';
import { maxChunkBytes } from '../../shared/link/messages.js';
import { AgentError } from '../errors.js';
import { consumerFailure } from './consumer-failure.js';
import { getObject, storeError } from './object-requests.js';
import type { StageFiles } from './stage-files.js';

export interface FetchInput {
  path: string;
  url: string;
  sha256: string;
  size: number;
  mode: number;
}

/** Pieces of at most `max` bytes, small ones joined (a gunzip answers 16 KiB at a time). */
async function* inChunks(source: AsyncIterable<Buffer>, max: number): AsyncIterable<Buffer> {
  let held: Buffer[] = [];
  let bytes = 0;
  for await (const piece of source) {
    for (let at = 0; at < piece.length;) {
      const part = piece.subarray(at, at + max - bytes);
      held.push(part);
      bytes += part.length;
      at += part.length;
      if (bytes === max) {
        yield Buffer.concat(held, bytes);
        held = [];
        bytes = 0;
      }
    }
  }
  if (bytes > 0) yield Buffer.concat(held, bytes);
}

/** What a damaged stored blob fails with: an unknown encoding, or gzip that does not inflate. */
const isDamage = (e: unknown) => (e instanceof Error && e.message.startsWith('damaged blob')) || /^Z_/.test(String((e as NodeJS.ErrnoException).code));

/**
 * Writes one file of a stage from an object store (StageFetch): the blob is decoded as it arrives
 * (unless an Agent stored the file's own bytes, `x-amz-meta-cairn-encoding: identity`) and written
 * like the Controller's chunks, so its sha256 and size are checked the same way. Never more than
 * the manifest's size is written: a blob that decodes to more (a gzip bomb, or another file under
 * the name) fails as soon as it passes it. A failure leaves nothing of the file in the stage. The
 * caller holds the path's write lock.
 */
export async function fetchIntoStage(files: StageFiles, input: FetchInput, signal: AbortSignal): Promise<void> {
  const { path } = input;
  let offset = 0;
  let broke: Error | undefined;
  // An abort rejects the pipeline at once, while a chunk may still be on its way to the file: the removal waits for it, or the chunk would bring the file back.
  let writing: Promise<unknown> = Promise.resolve();
  try {
    const body = await getObject(input.url, signal);
    body.once('error', (e) => {
      broke = e;
    });
    const failure = consumerFailure();
    const asUploaded = body.headers['x-amz-meta-cairn-encoding'] === 'identity';
    await pipeline(body, asUploaded ? new PassThrough() : new BlobDecoder(), failure.wrap(async (decoded: AsyncIterable<Buffer>) => {
      for await (const data of inChunks(decoded, maxChunkBytes)) {
        if (offset + data.length > input.size) throw new AgentError('CHECKSUM_MISMATCH', `${path}: the blob in the object store holds more than the manifest's ${input.size} bytes.`);
        writing = files.write({ path, offset, data, last: false, sha256: '', mode: 0, size: 0 });
        await writing;
        offset += data.length;
      }
    }), { signal }).catch(failure.rethrow);
    await files.write({ path, offset, data: Buffer.alloc(0), last: true, sha256: input.sha256, mode: input.mode, size: input.size });
  } catch (e) {
    await writing.catch(() => undefined);
    await files.remove(path);
    if (isDamage(e)) throw new AgentError('CHECKSUM_MISMATCH', `${path}: the blob in the object store is damaged (${(e as Error).message}).`);
    if (broke && !(e instanceof AgentError) && !signal.aborted) throw storeError(input.url, `broke off the download (${broke.message})`);
    throw e;
  }
}
