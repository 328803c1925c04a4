import type { ApiClient } from './http.js';
import { waitFor } from './wait-for.js';

export interface StreamEvent {
  event: string;
  data: unknown;
  /** The SSE id, when the event has one. */
  id?: string;
}

/**
 * A Server-Sent Events client for tests: reads the stream in the background, keeps every event
 * and comment it saw, and waits for one with a predicate (polling what has arrived). `E` names the
 * stream's events (e.g. ServerWatchEvent); the data is parsed JSON, taken as `E` unchecked.
 */
export class EventStreamReader<E extends StreamEvent = StreamEvent> {
  readonly events: E[] = [];
  readonly comments: string[] = [];
  private buffer = '';

  private constructor(readonly status: number, readonly contentType: string, private readonly abort: AbortController) {}

  /** `lastEventId` is sent as `Last-Event-ID`, as EventSource does when it reconnects. */
  static async open<E extends StreamEvent = StreamEvent>(client: ApiClient, path: string, lastEventId?: string): Promise<EventStreamReader<E>> {
    const headers: Record<string, string> = {};
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    if (client.auth.cookie) headers.cookie = client.auth.cookie;
    if (client.auth.token) headers.authorization = `Bearer ${client.auth.token}`;
    const abort = new AbortController();
    const res = await fetch(`${client.baseUrl}/api/v1${path}`, { headers, signal: abort.signal });
    const reader = new EventStreamReader<E>(res.status, res.headers.get('content-type') ?? '', abort);
    if (res.body) void reader.pump(res.body);
    return reader;
  }

  /** Waits for an event matching `predicate` and returns it. */
  next(predicate: (e: E) => boolean, what: string, timeoutMs = 5_000): Promise<E> {
    return waitFor(() => this.events.find(predicate), { timeoutMs, intervalMs: 10, what });
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          this.parse(this.buffer.slice(0, end));
          this.buffer = this.buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
  }

  private parse(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) this.events.push({ event, data: JSON.parse(data.join('\n')) as unknown, ...(id === undefined ? {} : { id }) } as E);
  }
}
