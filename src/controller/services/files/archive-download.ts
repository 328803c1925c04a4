import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { maxChunkBytes, type FileChunk } from '../../../shared/link/messages.js';
import type { Caller } from '../../core/caller.js';
import { agentDeadlines, type NodeCalls } from '../../link/node-calls.js';
import type { ServerDoc } from '../../store/records.js';
import type { ServerAggregate } from '../servers/aggregate.js';

/** A zip download asks the Agent for this much at a time, then waits for the client to take it. */
const rangeBytes = 4 * maxChunkBytes;

/** Waits until the client took what was written, or left; the listener that did not fire is removed (a large zip waits thousands of times). */
async function drainedOrClosed(body: PassThrough): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([once(body, 'drain', { signal: settled.signal }), once(body, 'close', { signal: settled.signal })]);
  } finally {
    settled.abort();
  }
}

/**
 * A folder as a zip made by the Agent as the client reads it: 4 MiB at a time, the next asked
 * only once the client took the last (see file-transfer.ts), so neither side holds the zip. The
 * first range comes before the answer starts, so a missing folder is a clean 404; a client that
 * goes away gives the Agent's stream up. The zip's size is not known ahead: no Content-Length.
 */
export class ArchiveDownloads {
  constructor(
    private readonly servers: ServerAggregate,
    private readonly calls: NodeCalls,
  ) {}

  async zip(caller: Caller, serverId: string, path: string): Promise<PassThrough> {
    const doc = await this.servers.load(caller, serverId, 'files.read');
    const streamId = randomUUID();
    const range = async (): Promise<FileChunk[]> => {
      const chunks: FileChunk[] = [];
      const last = await this.calls.ask(doc, { body: 'fileArchiveRead', fileArchiveRead: { serverId, path, streamId, maxBytes: rangeBytes, abort: false } }, {
        timeoutMs: agentDeadlines.disk,
        onPart: (part) => {
          if (part.payload === 'fileChunk') chunks.push(part.fileChunk);
        },
      });
      if (last.payload === 'fileChunk') chunks.push(last.fileChunk);
      return chunks;
    };
    const first = await range();
    const body = new PassThrough();
    const pump = async () => {
      for (let chunks = first; ; chunks = await range()) {
        for (const chunk of chunks) {
          if (chunk.data.length > 0 && !body.write(chunk.data)) await drainedOrClosed(body);
        }
        if (chunks.some((c) => c.eof)) break;
        if (body.destroyed) throw new Error('the client went away');
      }
      body.end();
    };
    void pump().catch((err: unknown) => {
      this.abort(doc, streamId);
      body.destroy(err instanceof Error ? err : new Error(String(err)));
    });
    return body;
  }

  private abort(doc: ServerDoc, streamId: string): void {
    void this.calls.ask(doc, { body: 'fileArchiveRead', fileArchiveRead: { serverId: doc._id, path: '.', streamId, maxBytes: 0, abort: true } }, { timeoutMs: agentDeadlines.quick })
      .catch(() => undefined);
  }
}
