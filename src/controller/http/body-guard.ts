import type { IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { DomainError } from '../core/errors.js';

const stalledBody = (silenceMs: number) =>
  // The rest of the body may never come: the connection closes after the answer.
  new DomainError('request_timeout', `No part of the body arrived for ${Math.round(silenceMs / 1000)} s; send it again.`, { headers: { Connection: 'close' } });

/**
 * A raw request body as a stream that fails with `request_timeout` once the client has sent
 * nothing for `silenceMs` while the reader waits for it. Only the client's silence counts: data
 * already buffered (the reader is busy, say the Agent is writing a chunk) keeps the clock from
 * running out. A client that goes away fails the stream as a cut-off upload.
 */
export function guardBody(req: IncomingMessage, silenceMs: number): Readable {
  let timer: NodeJS.Timeout | undefined;
  const guarded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      arm();
      done(null, chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done();
    },
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (guarded.readableLength > 0 || guarded.writableLength > 0) return arm();
      req.unpipe(guarded);
      req.pause();
      guarded.destroy(stalledBody(silenceMs));
    }, silenceMs);
  };
  req.once('close', () => {
    if (!req.complete) guarded.destroy(new DomainError('invalid_request', 'The upload was cut off before its end.'));
  });
  req.once('error', (error) => guarded.destroy(error));
  // The reader hears of a failure through its read; a body nobody reads (the request was refused
  // first) must not turn it into an uncaught error.
  guarded.on('error', () => undefined);
  guarded.once('close', () => clearTimeout(timer));
  req.pipe(guarded);
  arm();
  return guarded;
}
