import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Network, ServerListItem } from '../../api/types';
import { SelectField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';

/** Which member players are sent to first; none sends them to the first route. */
export function LobbyForm({ network, members }: { network: Network; members: ServerListItem[] }) {
  const client = useQueryClient();
  const [lobby, setLobby] = useState<string>();
  const chosen = lobby ?? network.lobbyServerId ?? '';
  const update = useMutation({
    mutationFn: (lobbyServerId: string) => api.network.update({ lobbyServerId: lobbyServerId || null }),
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.network.record, saved);
      void client.invalidateQueries({ queryKey: queryKeys.network.routes });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    update.mutate(chosen);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Lobby">
      <SelectField label="Lobby" field="lobbyServerId" error={update.error} value={chosen} onChange={(e) => setLobby(e.target.value)}
        hint="Players are sent to the lobby first.">
        <option value="">No lobby (the first route)</option>
        {members.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
      </SelectField>
      <ProblemAlert error={update.error} fields={['lobbyServerId']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>{update.isPending ? 'Saving lobby…' : 'Save lobby'}</button>
        {update.isSuccess ? <span role="status" className="success">Lobby saved.</span> : null}
      </div>
    </form>
  );
}
