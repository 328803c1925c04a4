import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllTeams } from '../../api/reference-data';
import type { Network } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { CheckboxGroup } from '../../components/Choices';

const trustHint = 'Members share the forwarding secret: whoever runs code on one member (plugins, files) can pose as any player on the others. Admit only teams you trust as much as each other.';

/** The teams whose servers may join the network: chosen by global administrators, shown to everyone. */
export function AdmittedTeams({ network, admin }: { network: Network; admin: boolean }) {
  const teams = useAllTeams(admin);
  const client = useQueryClient();
  const [selected, setSelected] = useState<string[]>(network.teamIds);
  const update = useMutation({
    mutationFn: api.network.update,
    onSuccess: (saved) => client.setQueryData(queryKeys.network.record, saved),
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    update.mutate({ teamIds: selected });
  };
  if (!admin) {
    const names = network.teamIds.map((id) => nameOf(teams.data, id));
    return (
      <section className="card" aria-labelledby="admitted-heading">
        <h2 id="admitted-heading">Admitted teams</h2>
        <p>{names.length ? names.join(', ') : 'No team is admitted yet: only a global administrator can add servers to the network.'}</p>
      </section>
    );
  }
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="admitted-heading">
      <h2 id="admitted-heading">Admitted teams</h2>
      <CheckboxGroup legend="Teams whose servers may join the network" hint={trustHint} field="teamIds" error={update.error}
        choices={(teams.data ?? []).filter((t) => !t.internal).map((t) => ({ value: t.id, label: t.name }))} selected={selected} onChange={setSelected} />
      <ProblemAlert error={update.error} fields={['teamIds']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>{update.isPending ? 'Saving admitted teams…' : 'Save admitted teams'}</button>
        {update.isSuccess ? <span role="status" className="success">Saved.</span> : null}
      </div>
    </form>
  );
}
