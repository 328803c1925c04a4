import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Team } from '../../api/types';
import { useMe } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { FormProblem } from '../../components/FormProblem';
import { peopleTeams } from './people-teams';
import '../admin.css';
import { TeamDetail } from './TeamDetail';

const columns: Column<Team>[] = [
  { header: 'Name', essential: true, cell: (t) => <Link to={`?team=${encodeURIComponent(t.id)}`}>{t.name}</Link> },
];

export function TeamsPage() {
  const me = useMe();
  const admin = me.data?.globalAdmin === true;
  const [params, setParams] = useSearchParams();
  const selected = params.get('team');
  const pager = useCursorPager();
  const teams = useQuery({ queryKey: queryKeys.teams.list(pager.cursor), queryFn: () => api.teams.list({ cursor: pager.cursor }) });
  return (
    <section>
      <h1>Teams</h1>
      <p className="lede">Servers belong to a team; its members act on them with the permissions of their roles there.</p>
      <ProblemAlert error={teams.error} />
      {teams.data ? <DataTable caption="Teams" columns={columns} rows={peopleTeams(teams.data.items)} rowKey={(t) => t.id} empty={admin ? 'No teams yet: create one below.' : 'You belong to no team.'} /> : teams.error ? null : <Loading what="teams" />}
      <Pager pager={pager} nextCursor={teams.data?.nextCursor} label="Teams pages" />
      {selected ? <TeamDetail key={selected} teamId={selected} admin={admin} onClose={() => setParams({})} /> : null}
      {admin ? <NewTeamForm onCreated={(team) => setParams({ team: team.id })} /> : null}
    </section>
  );
}

function NewTeamForm({ onCreated }: { onCreated: (team: Team) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: api.teams.create,
    onSuccess: async (team) => {
      setName('');
      onCreated(team);
      await client.invalidateQueries({ queryKey: queryKeys.teams.all });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate({ name: name.trim() });
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-team-heading">
      <h2 id="new-team-heading">New team</h2>
      <TextField label="Name" field="name" error={create.error} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" hint="1 to 100 characters." required />
      <FormProblem error={create.error} fields={['name']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating team…' : 'Create team'}</button>
      </div>
    </form>
  );
}
