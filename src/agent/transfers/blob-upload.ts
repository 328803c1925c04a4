import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { verifying } from '../../shared/backup/blob-encoding.js';
import { ChecksumMismatchError } from '../../shared/backup/blob-store.js';
import { AgentError } from '../errors.js';
import { consumerFailure } from './consumer-failure.js';
import { putObjectPart } from './object-requests.js';

/** The largest part the Agent holds in memory (the Controller asks for 8 MiB; S3 allows up to 5 GiB). */
const maxPartBytes = 256 * 1024 * 1024;

export interface UploadParts {
  sha256: string;
  partBytes: number;
  partUrls: string[];
}

export interface Uploaded {
  storedBytes: number;
  etags: string[];
}

/** Bytes waiting to become a part: cut only at exact part sizes, into pieces never copied. */
class PartBuffer {
  private chunks: Buffer[] = [];
  bytes = 0;

  add(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The first `n` bytes, as the pieces they are in (the last one cut). */
  take(n: number): Buffer[] {
    const part: Buffer[] = [];
    let wanted = n;
    while (wanted > 0) {
      const head = this.chunks[0];
      if (head.length <= wanted) {
        part.push(head);
        this.chunks.shift();
        wanted -= head.length;
      } else {
        part.push(head.subarray(0, wanted));
        this.chunks[0] = head.subarray(wanted);
        wanted = 0;
      }
    }
    this.bytes -= n;
    return part;
  }
}

/**
 * The headers a one-request upload is presigned with: the file's sha256, which the store checks
 * against the body (so it keeps no other bytes under the blob's name), and the mark that the
 * object is the file's own bytes.
 */
const wholeObjectHeaders = (sha256: string) => ({ 'x-amz-checksum-sha256': Buffer.from(sha256, 'hex').toString('base64'), 'x-amz-meta-cairn-encoding': 'identity' });

/**
 * Streams a file, as it is (the store can then check its sha256), to presigned part URLs: each
 * full part as soon as there is more than a part's worth (so one part is held at a time), the
 * last only after the whole file was read and hashed. A file whose sha256 is not the manifest's
 * therefore never completes an object: a single-request upload sends nothing (and the store would
 * refuse it), and the parts of a multipart one stay parts until the Controller aborts them.
 */
export async function uploadBlob(content: Readable, parts: UploadParts, signal: AbortSignal): Promise<Uploaded> {
  if (!(parts.partBytes > 0 && parts.partBytes <= maxPartBytes) || parts.partUrls.length === 0) {
    throw new AgentError('INVALID_REQUEST', `part_bytes, part_urls: a part size of 1 to ${maxPartBytes} bytes and at least one URL.`);
  }
  const uploaded: Uploaded = { storedBytes: 0, etags: [] };
  const headers = parts.partUrls.length === 1 ? wholeObjectHeaders(parts.sha256) : {};
  /** A part that is not the last needs a URL after its own: else it is refused before it is sent. */
  const send = async (part: Buffer[], last: boolean) => {
    const place = uploaded.etags.length;
    if (place + (last ? 0 : 1) >= parts.partUrls.length) throw new AgentError('TOO_LARGE', `part_urls: the file needs more than ${parts.partUrls.length} parts of ${parts.partBytes} bytes.`);
    uploaded.etags.push(await putObjectPart(parts.partUrls[place], part, signal, headers));
    uploaded.storedBytes += part.reduce((n, piece) => n + piece.length, 0);
  };
  const held = new PartBuffer();
  const failure = consumerFailure();
  try {
    await pipeline(content, verifying(parts.sha256), failure.wrap(async (bytes: AsyncIterable<Buffer>) => {
      for await (const chunk of bytes) {
        held.add(chunk);
        while (held.bytes > parts.partBytes) await send(held.take(parts.partBytes), false);
      }
    }), { signal }).catch(failure.rethrow);
  } catch (e) {
    if (e instanceof ChecksumMismatchError) throw new AgentError('CHECKSUM_MISMATCH', `The file changed since the snapshot listed it (${e.message}).`);
    throw e;
  }
  await send(held.take(held.bytes), true);
  return uploaded;
}
