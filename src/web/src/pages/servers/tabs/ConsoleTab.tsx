import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../../../api/client';
import type { StreamEvent } from '../../../api/event-stream';
import type { ConsoleEndEvent, ConsoleLineEvent, ServerDetail } from '../../../api/types';
import { useEventStream, type StreamState } from '../../../api/use-event-stream';
import { CommandForm } from './CommandForm';
import { useFirstScreenHeight } from './use-first-screen-height';

/** How many console lines the terminal keeps for scrolling back. */
const scrollback = 5000;

/**
 * `end` reasons that say the connection ended, not the game: the Controller stopping (a restart),
 * its link to the Node dropping, or this page reading too slowly. The console is opened again.
 */
const transientEnds = new Set(['shutdown', 'node_unavailable', 'lagging']);

const isTransient = (end: ConsoleEndEvent) => transientEnds.has(end.reason);
const isFinalEvent = (e: StreamEvent) => e.event === 'end' && !isTransient(e.data as ConsoleEndEvent);

function describeEnd(end: ConsoleEndEvent): string {
  const how = [end.exitCode !== undefined ? `exit code ${end.exitCode}` : '', end.signal ? `signal ${end.signal}` : ''].filter(Boolean).join(', ');
  return `The console ended: ${end.reason}${how ? ` (${how})` : ''}.`;
}

function describeStream(state: StreamState, live: boolean, end: ConsoleEndEvent | undefined): string {
  if (!live) return end ? describeEnd(end) : 'The server is not running; its console opens when it starts.';
  switch (state.kind) {
    case 'open': return 'Connected: new lines appear as the server prints them.';
    case 'connecting': return 'Connecting to the console…';
    case 'retrying': return `Connection lost${state.problem ? ` (${state.problem.text})` : ''}; reconnecting in ${Math.ceil(state.inMs / 1000)} s…`;
    case 'ended': return end ? describeEnd(end) : 'The console ended.';
    case 'refused': return `The console is not available: ${state.problem.text}`;
  }
}

/**
 * The live console: xterm.js with its DOM renderer inside the element with role `log`, so the
 * lines are text in the page (readable by screen readers and tests), and a command field under it,
 * the terminal sized so both fit the first screen.
 */
export function ConsoleTab({ server }: { server: ServerDetail }) {
  const host = useRef<HTMLDivElement>(null);
  const commands = useRef<HTMLDivElement>(null);
  const height = useFirstScreenHeight(host, commands);
  const terminal = useRef<Terminal | null>(null);
  const inReplay = useRef(false);
  const [end, setEnd] = useState<ConsoleEndEvent>();
  const runtime = server.status.runtimeState;
  const live = runtime === 'RUNNING' || runtime === 'STARTING';

  useEffect(() => {
    const term = new Terminal({
      convertEol: true, disableStdin: true, scrollback, fontSize: 13, cursorBlink: false, cursorStyle: 'bar', cursorInactiveStyle: 'none',
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      theme: { background: '#101418', foreground: '#e6edf3' },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current!);
    // The DOM renderer's rows are the text people read: xterm hides them from assistive technology by default.
    host.current!.querySelector('.xterm-rows')?.removeAttribute('aria-hidden');
    fit.fit();
    const resize = new ResizeObserver(() => fit.fit());
    resize.observe(host.current!);
    terminal.current = term;
    return () => {
      resize.disconnect();
      term.dispose();
      terminal.current = null;
    };
  }, []);

  const onEvent = useCallback((e: StreamEvent) => {
    const term = terminal.current;
    if (!term) return;
    if (e.event === 'line') {
      const line = e.data as ConsoleLineEvent;
      // A reconnect replays the tail: start the screen afresh rather than show lines twice.
      if (line.replay && !inReplay.current) term.reset();
      inReplay.current = line.replay;
      term.writeln(line.truncated ? `${line.text} [cut]` : line.text);
      setEnd(undefined);
    } else if (e.event === 'replayed') {
      // The tail is over: the replay of a later connection starts the screen afresh.
      inReplay.current = false;
    } else if (e.event === 'end') {
      const ended = e.data as ConsoleEndEvent;
      if (isTransient(ended)) {
        term.writeln(`\x1b[2m-- The connection ended (${ended.reason}); reconnecting. --\x1b[0m`);
        return;
      }
      setEnd(ended);
      term.writeln(`\x1b[2m-- ${describeEnd(ended)} --\x1b[0m`);
    }
  }, []);

  const state = useEventStream(api.console.streamPath(server.id), onEvent, {
    query: { tail: 100 }, enabled: live, isFinalEvent, key: server.status.startedAt,
  });

  return (
    <div>
      <p className="console-status" role="status">{describeStream(state, live, end)}</p>
      <div className="console">
        <div ref={host} className="terminal-host" role="log" aria-label="Console output" style={height ? { height } : undefined} />
      </div>
      <div ref={commands}>
        <CommandForm serverId={server.id} running={runtime === 'RUNNING'} />
      </div>
    </div>
  );
}
