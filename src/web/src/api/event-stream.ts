import { EventSourceParserStream } from 'eventsource-parser/stream';
import { apiUrl, problemOf } from './http';

export interface StreamEvent {
  event: string;
  data: unknown;
}

/**
 * Reads one Server-Sent Events stream of the API with fetch (so a refusal arrives as a problem
 * with its status, unlike EventSource) until it ends or `signal` aborts. Resolves when the
 * Controller closes the stream; throws an ApiProblem if it refuses to open it.
 */
export async function readEventStream(path: string, query: object | undefined, onEvent: (e: StreamEvent) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
  const res = await fetch(apiUrl(path, query), { headers: { accept: 'text/event-stream' }, credentials: 'same-origin', signal });
  if (!res.ok || !res.body) throw await problemOf(res);
  onOpen?.();
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onEvent({ event: value.event ?? 'message', data: JSON.parse(value.data) });
  }
}

/**
 * Back-off for reconnects: 1 s, 2 s, 4 s, then every 5 s, each up to a fifth sooner at random so
 * that many browsers do not return at the same instant. The cap is low on purpose: a Controller
 * back from a restart is noticed within seconds, and a refused connection costs it next to nothing.
 */
export function reconnectDelayMs(attempt: number): number {
  const base = Math.min(5_000, 1_000 * 2 ** attempt);
  return base * (0.8 + Math.random() * 0.2);
}
