import { Transform } from 'node:stream';

/** A pass-through that counts the bytes going by (the stored, compressed size a blob adds). */
export function counting(): Transform & { bytes: number } {
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      t.bytes += chunk.length;
      done(null, chunk);
    },
  }) as Transform & { bytes: number };
  t.bytes = 0;
  return t;
}
