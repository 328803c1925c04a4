import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { ProblemError } from '../http/problem.js';

export interface ReceivedFile {
  path: string;
  sha256: string;
  size: number;
}

const tooLarge = (maxBytes: number) =>
  // The rest of the body is never read: the connection closes after the answer instead.
  new ProblemError('too_large', `The body is larger than ${maxBytes} bytes.`, { Connection: 'close' });

/**
 * Streams a raw request body to `path`, hashing as it goes. A declared Content-Length above the
 * limit is refused before reading; a body that crosses it while arriving is refused at once
 * (the request is paused, not destroyed, so the client still gets the 413).
 * koa-body leaves octet-stream bodies unread, so this is the only reader.
 */
export async function receiveBody(req: IncomingMessage, path: string, maxBytes: number): Promise<ReceivedFile> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const out = createWriteStream(path, { mode: 0o600 });
  const hash = createHash('sha256');
  let size = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = (error?: Error) => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', stop);
        req.off('aborted', onAborted);
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
      const onAborted = () => stop(new ProblemError('invalid_request', 'The upload was cut off before its end.'));
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', stop);
      req.once('aborted', onAborted);
    });
    out.end();
    await once(out, 'close');
  } catch (error) {
    out.destroy();
    await rm(path, { force: true });
    throw error;
  }
  return { path, sha256: hash.digest('hex'), size };
}
