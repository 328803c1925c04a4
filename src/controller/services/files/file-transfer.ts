import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { maxChunkBytes, type FileChunk } from '../../../shared/link/messages.js';
import { DomainError } from '../../core/errors.js';
import type { ServerDoc } from '../../store/records.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';

/** The spec's file size limit for PUT. */
export const maxFileBytes = 64 * 1024 * 1024;
/** SFTP writes know no size up front and have no limit of their own: only the server's disk limit, which the Agent holds. */
export const diskLimitOnly = Number.MAX_SAFE_INTEGER;
/** A download asks the Agent for this much at a time, then waits for the client to take it. */
const downloadRangeBytes = 4 * maxChunkBytes;

export const tooLarge = () => new DomainError('too_large', `A file holds at most ${maxFileBytes} bytes (64 MiB).`);

/**
 * Streams a request body to the Agent in chunks of at most 1 MiB. At most one chunk is on its way
 * while the next is read, so the Controller holds about 2 MiB of an upload whatever its size, and
 * the client is read no faster than the Agent writes. An empty first chunk lets the Agent check the
 * path before any of the body is read. Crossing the limit or losing the client aborts the upload,
 * and the Agent removes what it had written. Resolves with the file's size. `maxBytes` is told to
 * the Agent, which holds it too.
 */
export async function uploadBody(calls: NodeCalls, doc: ServerDoc, path: string, body: Readable, maxBytes = maxFileBytes): Promise<number> {
  const uploadId = randomUUID();
  const send = (offset: number, data: Buffer, last: boolean) =>
    calls.ask(doc, { body: 'fileWriteChunk', fileWriteChunk: { serverId: doc._id, path, uploadId, offset, data, last, abort: false, maxBytes } }, { timeoutMs: agentDeadlines.disk });
  await send(0, Buffer.alloc(0), false);
  let offset = 0;
  let received = 0;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let inFlight: Promise<unknown> = Promise.resolve();
  try {
    // Leaving the loop early must not destroy the request: that would reset the connection before
    // the client reads the 413; the rest of the body is drained instead (see the catch).
    for await (const piece of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      received += piece.length;
      if (received > maxBytes) throw tooLarge();
      held.push(piece);
      heldBytes += piece.length;
      while (heldBytes >= maxChunkBytes) {
        const all = Buffer.concat(held, heldBytes);
        const chunk = all.subarray(0, maxChunkBytes);
        held = heldBytes > maxChunkBytes ? [all.subarray(maxChunkBytes)] : [];
        heldBytes -= maxChunkBytes;
        await inFlight;
        inFlight = send(offset, chunk, false);
        // Marked handled here; awaiting it above or below still rethrows its error.
        inFlight.catch(() => undefined);
        offset += chunk.length;
      }
    }
    await inFlight;
    await send(offset, Buffer.concat(held, heldBytes), true);
    return received;
  } catch (e) {
    body.resume();
    void calls.ask(doc, { body: 'fileWriteChunk', fileWriteChunk: { serverId: doc._id, path, uploadId, offset: 0, data: Buffer.alloc(0), last: false, abort: true, maxBytes } }, { timeoutMs: agentDeadlines.quick })
      .catch(() => undefined);
    throw e;
  }
}

export interface Range {
  chunks: FileChunk[];
  totalBytes: number;
}

/** One range of a file as the Agent sends it: at most `length` bytes from `offset`, and the file's size. */
export async function readRange(calls: NodeCalls, doc: ServerDoc, path: string, offset: number, length: number): Promise<Range> {
  const chunks: FileChunk[] = [];
  const take = (c: FileChunk) => chunks.push(c);
  const last = await calls.ask(doc, { body: 'fileRead', fileRead: { serverId: doc._id, path, chunkBytes: maxChunkBytes, offset, length } }, {
    timeoutMs: agentDeadlines.disk,
    onPart: (part) => {
      if (part.payload === 'fileChunk') take(part.fileChunk);
    },
  });
  if (last.payload === 'fileChunk') take(last.fileChunk);
  return { chunks, totalBytes: chunks[0]?.totalBytes ?? 0 };
}

/**
 * A file as a stream paced by its reader: 4 MiB ranges from the Agent, the next asked only once the
 * client has taken the last, so a slow client or a large file never piles up in the Controller. The
 * first range comes before the answer starts, so a missing file is a clean 404. A file that changes
 * size meanwhile, or an Agent that goes away, ends the body short of its Content-Length.
 */
export async function downloadStream(calls: NodeCalls, doc: ServerDoc, path: string): Promise<{ body: PassThrough; sizeBytes: number }> {
  const first = await readRange(calls, doc, path, 0, downloadRangeBytes);
  const total = first.totalBytes;
  const body = new PassThrough();
  const write = async (range: Range): Promise<number> => {
    let bytes = 0;
    for (const chunk of range.chunks) {
      bytes += chunk.data.length;
      if (!body.write(chunk.data)) await once(body, 'drain');
    }
    return bytes;
  };
  const pump = async () => {
    let offset = await write(first);
    while (offset < total && !body.destroyed) {
      const range = await readRange(calls, doc, path, offset, Math.min(downloadRangeBytes, total - offset));
      const bytes = range.totalBytes === total ? await write(range) : 0;
      if (bytes === 0) throw new Error('the file changed during the download');
      offset += bytes;
    }
    body.end();
  };
  void pump().catch((err: unknown) => body.destroy(err instanceof Error ? err : new Error(String(err))));
  return { body, sizeBytes: total };
}
