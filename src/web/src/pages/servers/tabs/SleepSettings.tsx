import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { asProblem } from '../../../api/problem';
import { queryKeys } from '../../../api/query-keys';
import { rememberServer } from '../../../api/server-cache';
import type { ServerDetail, UpdateServer } from '../../../api/types';
import { CheckboxField } from '../../../components/Choices';
import { TextField } from '../../../components/Field';
import { FormProblem } from '../../../components/FormProblem';
import { parseWholeNumber } from '../../../format/units';
import { formatSeconds } from './seconds-words';

/** What the form starts from when the server does not sleep yet: ten minutes empty, woken by a join. */
const defaultSeconds = 600;

/** How the server sleeps now, in words, above the form. */
const now = (sleep: ServerDetail['sleep']) => (sleep
  ? `Now it sleeps after ${formatSeconds(sleep.afterEmptySeconds)} without players${sleep.wakeOnJoin ? ' and wakes when a player joins' : '; only Start wakes it'}.`
  : 'Now it never sleeps.');

/**
 * The server's `sleep`: stopped while nobody plays, woken by a join or Start. The seconds are the
 * API's own unit, so what is typed is what is sent; the API refuses a template without a player
 * count (naming `sleep`), and that refusal is shown under the checkbox.
 */
export function SleepSettings({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const [on, setOn] = useState(server.sleep !== undefined);
  const [seconds, setSeconds] = useState(String(server.sleep?.afterEmptySeconds ?? defaultSeconds));
  const [wakeOnJoin, setWakeOnJoin] = useState(server.sleep?.wakeOnJoin ?? true);
  const [local, setLocal] = useState<string>();
  const update = useMutation({
    mutationFn: (sleep: UpdateServer['sleep']) => api.servers.update(server.id, { sleep }),
    onSuccess: (detail) => {
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const afterEmptySeconds = parseWholeNumber(seconds);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setLocal(on && !afterEmptySeconds ? 'Enter a whole number of seconds.' : undefined);
    if (!on) update.mutate(null);
    else if (afterEmptySeconds) update.mutate({ afterEmptySeconds, wakeOnJoin });
  };
  // The checkbox shows a refusal of `sleep` as a whole; one of its fields is shown under that field.
  const wholeRefused = update.error != null && asProblem(update.error).field === 'sleep' ? update.error : undefined;
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="sleep-heading">
      <h2 id="sleep-heading">Sleep</h2>
      <p className="hint">A sleeping server is stopped while nobody plays, which frees its memory and CPU; its port still answers server lists. {now(server.sleep)}</p>
      <CheckboxField label="Sleep when empty" field="sleep" error={wholeRefused} checked={on} onChange={setOn} />
      <TextField label="Seconds empty before sleeping" field="sleep.afterEmptySeconds" error={update.error} localError={local} inputMode="numeric"
        value={seconds} onChange={(e) => setSeconds(e.target.value)} disabled={!on}
        hint={afterEmptySeconds ? `${formatSeconds(afterEmptySeconds)} with no player online.` : 'A whole number from 10 to 86400 (a day).'} />
      <CheckboxField label="Wake on join" field="sleep.wakeOnJoin" error={update.error} checked={wakeOnJoin} onChange={setWakeOnJoin} disabled={!on}
        hint="A player who joins the sleeping server is told it is starting, and joins again once it runs." />
      <FormProblem error={update.error} fields={['sleep']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>{update.isPending ? 'Saving sleep…' : 'Save sleep'}</button>
        {update.isSuccess ? <span role="status" className="success">Saved: generation {update.data.generation}.</span> : null}
      </div>
    </form>
  );
}
