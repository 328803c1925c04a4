import type { Problem } from './api-types.js';

/** A Server-Sent Events client for tests: connects with the caller's credentials and collects events as they arrive. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** `E` names the stream's events (e.g. ConsoleStreamEvent); the data is parsed JSON, taken as `E` unchecked. */
export interface SseStream<E extends SseEvent = SseEvent> {
  status: number;
  headers: Headers;
  /** The problem body when the stream was refused. */
  problem?: Problem;
  events: E[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Waits until an event matching `predicate` has arrived (or the stream ends, or time runs out). */
  next(predicate: (e: E) => boolean, timeoutMs?: number): Promise<E>;
  close(): void;
}

export async function openSse<E extends SseEvent = SseEvent>(url: string, headers: Record<string, string>): Promise<SseStream<E>> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: E[] = [];
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  if (!res.ok) {
    const text = await res.text();
    return {
      status: res.status, headers: res.headers, problem: text ? (JSON.parse(text) as Problem) : undefined, events, ended: Promise.resolve(),
      next: () => Promise.reject(new Error(`stream refused with ${res.status}`)), close: () => undefined,
    };
  }
  let done = false;
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(piece, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) as unknown } as E);
        }
        notify();
      }
    } catch {
      // closed by us
    } finally {
      done = true;
      notify();
    }
  })();
  return {
    status: res.status, headers: res.headers, events, ended,
    next(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (found) finish(() => resolve(found));
          else if (done) finish(() => reject(new Error(`stream ended without the event; got ${JSON.stringify(events).slice(0, 500)}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no such event within ${timeoutMs} ms; got ${JSON.stringify(events).slice(0, 500)}`))), timeoutMs);
        const finish = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
