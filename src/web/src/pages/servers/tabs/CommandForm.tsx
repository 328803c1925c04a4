import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent, type KeyboardEvent } from 'react';
import { api } from '../../../api/client';
import { TextField } from '../../../components/Field';
import { ProblemAlert } from '../../../components/ProblemAlert';

/** Keeps the last commands for Up and Down, newest last. */
const historyLimit = 100;

/** One console line to send, with shell-like history on the arrow keys. */
export function CommandForm({ serverId, running }: { serverId: string; running: boolean }) {
  const [command, setCommand] = useState('');
  const [history, setHistory] = useState<string[]>([]);
  const [position, setPosition] = useState<number>();
  const send = useMutation({
    mutationFn: (line: string) => api.console.command(serverId, line),
    onSuccess: (_, line) => {
      setHistory((h) => [...h.filter((x) => x !== line), line].slice(-historyLimit));
      setPosition(undefined);
      setCommand('');
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (command.trim()) send.mutate(command.replace(/^\//, ''));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    if (history.length === 0) return;
    e.preventDefault();
    const from = position ?? history.length;
    const next = e.key === 'ArrowUp' ? Math.max(0, from - 1) : from + 1;
    if (next >= history.length) {
      setPosition(undefined);
      setCommand('');
    } else {
      setPosition(next);
      setCommand(history[next]);
    }
  };
  return (
    <form className="command-form" onSubmit={submit}>
      <TextField label="Command" field="command" error={send.error} value={command} onChange={(e) => setCommand(e.target.value)} onKeyDown={onKeyDown}
        autoComplete="off" spellCheck={false} maxLength={65536} hint={running ? 'Up and Down recall earlier commands.' : 'Commands can be sent while the server is RUNNING.'} />
      <button type="submit" className="primary" disabled={send.isPending || !command.trim()}>Send</button>
      <ProblemAlert error={send.error} fields={['command']} />
    </form>
  );
}
