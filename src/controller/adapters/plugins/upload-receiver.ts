import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { DomainError } from '../../core/errors.js';

export interface ReceivedFile {
  path: string;
  sha256: string;
  size: number;
}

const tooLarge = (maxBytes: number) =>
  // The rest of the body is never read: the connection closes after the answer instead.
  new DomainError('too_large', `The body is larger than ${maxBytes} bytes.`, { headers: { Connection: 'close' } });

/**
 * Streams a raw request body to `path`, hashing as it goes. A declared Content-Length above the
 * limit is refused before reading; a body that crosses it while arriving is refused at once
 * (the request is paused, not destroyed, so the client still gets the 413).
 * koa-body leaves octet-stream bodies unread, so this is the only reader.
 */
export async function receiveBody(req: Readable, path: string, maxBytes: number, declaredBytes: number | undefined): Promise<ReceivedFile> {
  if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge(maxBytes);
  const out = createWriteStream(path, { mode: 0o600 });
  // A write still in flight when a refusal destroys the file stream fails with ERR_STREAM_DESTROYED;
  // the listener stays for the stream's whole life so that late error is not an uncaught exception.
  let writeFailure: Error | undefined;
  out.on('error', (error) => {
    writeFailure ??= error;
  });
  const hash = createHash('sha256');
  let size = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = (error?: Error) => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', stop);
        out.off('error', stop);
        if (error) {
          req.pause();
          reject(error);
        } else resolve();
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return stop(tooLarge(maxBytes));
        hash.update(chunk);
        if (!out.write(chunk)) {
          req.pause();
          out.once('drain', () => req.resume());
        }
      };
      const onEnd = () => stop();
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', stop);
      out.once('error', stop);
    });
    out.end();
    await once(out, 'close');
    if (writeFailure) throw writeFailure;
  } catch (error) {
    out.destroy();
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size };
}
