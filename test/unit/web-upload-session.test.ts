import { expect } from 'chai';
import { chunkBytes, sendInChunks, type SessionCalls } from '../../src/web/src/api/upload-session.js';

/** An API problem as the UI's client throws it (ApiProblem's fields). */
type Problem = Error & { status: number; code: string };
const problem = (status: number, code: string): Problem => Object.assign(new Error(code), { status, code });
const isProblem = (e: unknown): e is Problem => e instanceof Error && 'code' in e;

/**
 * An upload session as the API keeps one: the bytes held, an offset that must match. `fault` may
 * cut a PUT after some of its bytes are kept, or refuse it, once per call number it names.
 */
function fakeSessions(fault: (call: number, offset: number, chunk: Buffer) => { keep: number; error: Problem } | Problem | undefined = () => undefined) {
  let held = Buffer.alloc(0);
  let size = 0;
  let calls = 0;
  const log: string[] = [];
  const api: SessionCalls = {
    begin: async (path, total) => {
      size = total;
      log.push(`begin ${path} ${total}`);
      return { id: 'u1', offset: 0 };
    },
    send: async (_id, offset, blob, onSent) => {
      const chunk = Buffer.from(await blob.arrayBuffer());
      const call = ++calls;
      log.push(`put ${offset}+${chunk.length}`);
      if (offset !== held.length) throw problem(409, 'upload_offset_mismatch');
      const f = fault(call, offset, chunk);
      if (isProblem(f)) throw f;
      if (f) {
        held = Buffer.concat([held, chunk.subarray(0, f.keep)]);
        onSent(f.keep);
        throw f.error;
      }
      held = Buffer.concat([held, chunk]);
      onSent(chunk.length);
      return { id: 'u1', offset: held.length };
    },
    status: async () => {
      log.push(`status ${held.length}`);
      return { id: 'u1', offset: held.length };
    },
    cancel: async () => {
      log.push('cancel');
    },
  };
  return { api, log, held: () => held, size: () => size };
}

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 251));

describe('web UI: a file over 64 MiB through an upload session', () => {
  const file = bytes(2 * chunkBytes + 12_345);
  const blob = () => new Blob([file]);

  it('sends it in chunks at the offset the session holds, reporting the bytes of the whole file', async () => {
    const s = fakeSessions();
    const seen: number[] = [];
    await sendInChunks(s.api, 'world/region.bin', blob(), (sent, total) => {
      expect(total).to.equal(file.length);
      seen.push(sent);
    }, 0);
    expect(s.log).to.deep.equal(['begin world/region.bin ' + file.length, `put 0+${chunkBytes}`, `put ${chunkBytes}+${chunkBytes}`, `put ${2 * chunkBytes}+12345`]);
    expect(s.held().equals(file)).to.equal(true);
    expect(seen.at(-1)).to.equal(file.length);
    expect(seen).to.deep.equal([...seen].sort((a, b) => a - b));
  });

  it('a connection cut at 90% resumes from what the session kept, sending nothing twice', async () => {
    const cutAt = Math.floor(file.length * 0.9);
    let cut = false;
    const s = fakeSessions((_call, offset, chunk) => {
      if (cut || cutAt >= offset + chunk.length) return undefined;
      cut = true;
      return { keep: cutAt - offset, error: problem(0, 'network') };
    });
    await sendInChunks(s.api, 'big.bin', blob(), () => undefined, 0);
    expect(s.held().equals(file)).to.equal(true);
    expect(s.log.slice(2)).to.deep.equal([`put ${chunkBytes}+${chunkBytes}`, `status ${cutAt}`, `put ${cutAt}+${file.length - cutAt}`]);
  });

  it('an offset the session moved past (409 upload_offset_mismatch, an answer lost) is asked again and followed; a Controller restarting (503) is waited for', async () => {
    const s = fakeSessions((call, _offset, chunk) => {
      if (call === 2) return { keep: chunk.length, error: problem(409, 'upload_offset_mismatch') };
      if (call === 3) return problem(503, 'node_unavailable');
      return undefined;
    });
    await sendInChunks(s.api, 'big.bin', blob(), () => undefined, 0);
    expect(s.held().equals(file)).to.equal(true);
    expect(s.log.slice(2)).to.deep.equal([
      `put ${chunkBytes}+${chunkBytes}`, `status ${2 * chunkBytes}`, `put ${2 * chunkBytes}+12345`, `status ${2 * chunkBytes}`, `put ${2 * chunkBytes}+12345`,
    ]);
  });

  it('a refusal retrying cannot mend (507) cancels the session and is what the caller gets', async () => {
    const s = fakeSessions((call) => (call === 2 ? problem(507, 'insufficient_storage') : undefined));
    let failed: unknown;
    await sendInChunks(s.api, 'big.bin', blob(), () => undefined, 0).catch((e: unknown) => { failed = e; });
    expect((failed as Problem).code).to.equal('insufficient_storage');
    expect(s.log.at(-1)).to.equal('cancel');
  });

  it('a link that stays down is given up after 5 tries of the chunk, and the session cancelled', async () => {
    const s = fakeSessions((call) => (call >= 2 ? problem(0, 'network') : undefined));
    let failed: unknown;
    await sendInChunks(s.api, 'big.bin', blob(), () => undefined, 0).catch((e: unknown) => { failed = e; });
    expect((failed as Problem).code).to.equal('network');
    expect(s.log.filter((l) => l.startsWith('put'))).to.have.length(6);
    expect(s.log.at(-1)).to.equal('cancel');
  });
});
