import { useEffect, useRef, useState } from 'react';
import { readEventStream, reconnectDelayMs, type StreamEvent } from './event-stream';
import { asProblem, type ApiProblem } from './problem';

export type StreamState =
  | { kind: 'connecting'; attempt: number }
  | { kind: 'open' }
  | { kind: 'retrying'; attempt: number; inMs: number; problem?: ApiProblem }
  | { kind: 'ended' }
  | { kind: 'refused'; problem: ApiProblem };

export interface EventStreamOptions {
  query?: object;
  enabled?: boolean;
  /** Whether an event ends the stream for good (the console's `end` of a stopped server): no reconnect after it. */
  isFinalEvent?: (e: StreamEvent) => boolean;
  /** A change of this value opens the stream anew (e.g. the server started again). */
  key?: string;
  /** Called each time a connection opens, before its first event (e.g. the watch's snapshot follows). */
  onOpen?: () => void;
}

/** Refusals that another attempt cannot fix. */
const isFinal = (p: ApiProblem) => p.status === 401 || p.status === 403 || p.status === 404 || p.code === 'server_not_running';

/**
 * Keeps one API event stream open while `enabled`, reconnecting with jittered back-off after
 * the network drops or the Controller restarts (honouring Retry-After on 429). `onEvent`, `onOpen`
 * and `isFinalEvent` may change between renders; the latest ones are called.
 */
export function useEventStream(path: string, onEvent: (e: StreamEvent) => void, options: EventStreamOptions = {}): StreamState {
  const { enabled = true, key } = options;
  const [state, setState] = useState<StreamState>({ kind: 'connecting', attempt: 0 });
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const opened = useRef(options.onOpen);
  opened.current = options.onOpen;
  const final = useRef(options.isFinalEvent);
  final.current = options.isFinalEvent;
  const queryKey = JSON.stringify(options.query ?? {});

  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let over = false;
    const connect = () => {
      setState({ kind: 'connecting', attempt });
      readEventStream(path, JSON.parse(queryKey) as object, (e) => {
        if (final.current?.(e)) over = true;
        handler.current(e);
      }, abort.signal, () => {
        attempt = 0;
        opened.current?.();
        setState({ kind: 'open' });
      }).then(() => {
        if (over) return setState({ kind: 'ended' });
        retry();
      }, (e: unknown) => {
        if (abort.signal.aborted) return;
        const problem = asProblem(e);
        if (isFinal(problem)) return setState({ kind: 'refused', problem });
        retry(problem);
      });
    };
    const retry = (problem?: ApiProblem) => {
      if (abort.signal.aborted) return;
      const inMs = problem?.retryAfterSeconds ? problem.retryAfterSeconds * 1000 : reconnectDelayMs(attempt);
      attempt += 1;
      setState({ kind: 'retrying', attempt, inMs, problem });
      timer = setTimeout(connect, inMs);
    };
    connect();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [path, queryKey, enabled, key]);

  return state;
}
