import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllTeams } from '../../api/reference-data';
import { useMe } from '../../app/session';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { rememberServer } from '../../api/server-cache';
import { CheckboxField } from '../../components/Choices';
import '../admin.css';
import { ServerSpecFields, serverSpecFields, useServerSpec } from './ServerSpecFields';
import { SyncVersions } from './software/SyncVersions';
import { TeamSelect, teamsForServers } from './TeamSelect';

const fields = ['name', 'teamId', ...serverSpecFields, 'inNetwork'];

/** Creates a game server; the proxy is made from the network page. */
export function NewServerPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useMe();
  const allTeams = useAllTeams(true);
  const teams = teamsForServers(allTeams.data);
  const spec = useServerSpec('GAME_SERVER', { cpu: '1000', memory: '1024' });
  const [form, setForm] = useState({ name: '', teamId: '' });
  const [teamError, setTeamError] = useState<string>();
  // Offered only for templates whose servers can join the network; sent only when ticked.
  const [inNetwork, setInNetwork] = useState(false);
  const member = inNetwork && spec.template?.networkMember === true;
  const teamId = form.teamId || teams?.[0]?.id || '';
  const create = useMutation({
    mutationFn: api.servers.create,
    onSuccess: (server) => {
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
      rememberServer(client, server);
      void navigate(`/servers/${server.id}`);
    },
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    // Without a team the API could only refuse the id; say it here, where the team is chosen.
    setTeamError(teamId ? undefined : 'Choose a team.');
    const body = spec.body();
    if (body && teamId) create.mutate({ name: form.name.trim(), teamId, ...body, ...(member ? { inNetwork: true } : {}) });
  };
  const err = create.error;
  return (
    <section>
      <h1>New server</h1>
      <ProblemAlert error={allTeams.error ?? spec.templates.error ?? spec.versionList.error} />
      <form className="card" onSubmit={submit} noValidate>
        <TextField label="Name" field="name" error={err} value={form.name} onChange={set('name')} required maxLength={64} />
        <TeamSelect teams={teams} value={teamId} onChange={(id) => setForm({ ...form, teamId: id })} error={err} localError={teamError}
          mayCreateTeams={me.data?.globalAdmin === true} />
        <ServerSpecFields spec={spec} error={err} nodeHint="Optional: without one the best-fitting Node that accepts placements is chosen." />
        {spec.template?.networkMember ? (
          <CheckboxField label="Network member" field="inNetwork" error={err} checked={inNetwork} onChange={setInNetwork}
            hint="The network's proxy routes players to it while it runs; its team must be admitted to the network." />
        ) : null}
        <ProblemAlert error={err} fields={fields} />
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating server…' : 'Create server'}</button>
      </form>
      <SyncVersions />
    </section>
  );
}
