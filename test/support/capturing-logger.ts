import { pino } from 'pino';
import { Writable } from 'node:stream';

/** A logger whose JSON lines the test reads. */
export function capturingLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level }, sink) };
}
