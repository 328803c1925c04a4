import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { CliClient } from './client.js';

export interface StreamEvent {
  event: string;
  data: unknown;
  /** The event's SSE id, when it has one (the watch's events do). */
  id?: string;
}

/**
 * Reads one Server-Sent Events stream of the API, calling `onEvent` for each event until the
 * Controller ends it (resolves), `signal` aborts (resolves) or `onEvent` returns `'stop'`.
 * A refusal to open it throws the API's problem; `onOpen` runs once the stream is open.
 * `lastEventId` resumes a stream that has ids (the watch) where an earlier connection left off.
 */
export async function readEvents(
  client: CliClient, path: string, onEvent: (e: StreamEvent) => 'stop' | void,
  options: { signal?: AbortSignal; onOpen?: () => void; lastEventId?: string } = {},
): Promise<void> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  options.signal?.addEventListener('abort', stop);
  try {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    const res = await client.request('GET', path, { headers, signal: abort.signal });
    options.onOpen?.();
    const reader = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (onEvent({ event: value.event ?? 'message', data: JSON.parse(value.data), id: value.id }) === 'stop') return;
    }
  } catch (e) {
    if (abort.signal.aborted) return;
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    abort.abort();
  }
}
