import type { Readable } from 'node:stream';
import { maxChunkBytes } from '../../../shared/link/messages.js';
import { DomainError } from '../../core/errors.js';

/** Sends one chunk at `offset` and answers the offset after it. */
export type SendChunk = (offset: number, data: Buffer) => Promise<number>;

/**
 * Streams a request body into an upload session at `offset` in chunks of 1 MiB, at most one on its
 * way while the next is read: the Controller holds about 2 MiB whatever the size, and the client
 * is read no faster than the Node writes. `limit` bounds the body (the session's bytes left, or the
 * request's own limit, whichever is less): past it, `tooMuch` is thrown. A body cut before its end
 * still sends what had arrived, so the session's offset stands where the client's bytes stopped;
 * the cut is thrown after. Answers the offset reached.
 */
export async function streamIntoUpload(body: Readable, offset: number, limit: number, send: SendChunk, tooMuch: () => DomainError): Promise<number> {
  let next = offset;
  let received = 0;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let inFlight: Promise<unknown> = Promise.resolve();
  const ship = async (chunk: Buffer) => {
    await inFlight;
    const at = next;
    next += chunk.length;
    inFlight = send(at, chunk);
    // Marked handled here; awaiting it later still rethrows its error.
    inFlight.catch(() => undefined);
  };
  try {
    // Leaving early must not destroy the request: the client could not read the answer (see the catch).
    for await (const piece of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      received += piece.length;
      if (received > limit) throw tooMuch();
      held.push(piece);
      heldBytes += piece.length;
      while (heldBytes >= maxChunkBytes) {
        const all = Buffer.concat(held, heldBytes);
        held = heldBytes > maxChunkBytes ? [all.subarray(maxChunkBytes)] : [];
        heldBytes -= maxChunkBytes;
        await ship(all.subarray(0, maxChunkBytes));
      }
    }
  } catch (e) {
    body.resume();
    // What arrived before the cut is kept; a refusal of ours (too much) keeps what came before it only.
    if (!(e instanceof DomainError && e.code === 'too_large') && heldBytes > 0) await ship(Buffer.concat(held, heldBytes)).catch(() => undefined);
    await inFlight.catch(() => undefined);
    throw e;
  }
  if (heldBytes > 0) await ship(Buffer.concat(held, heldBytes));
  await inFlight;
  return next;
}
