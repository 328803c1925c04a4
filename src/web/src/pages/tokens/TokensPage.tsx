import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { ApiToken, CreateApiToken, CreatedApiToken, Team } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { TextField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { useAllTeams } from '../../api/reference-data';
import { formatTime } from '../../format/units';
import { scopeBody, TokenScopeFields, unscopedFields, type ScopeFields } from './TokenScopeFields';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyField } from '../../components/CopyField';
import { FormProblem } from '../../components/FormProblem';
import { ShownOnce } from '../../components/ShownOnce';
import '../admin.css';

/** A date from the form (`2027-01-31`) → the end of that day, local time, as the API's date-time. */
const endOfDay = (date: string) => new Date(`${date}T23:59:59.999`).toISOString();

/** Your own API tokens, for scripts and the CLI (`Authorization: Bearer …`). */
export function TokensPage() {
  const client = useQueryClient();
  const pager = useCursorPager();
  const tokens = useQuery({ queryKey: queryKeys.tokens.list(pager.cursor), queryFn: () => api.me.tokens({ cursor: pager.cursor }) });
  const [created, setCreated] = useState<CreatedApiToken>();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.tokens.all });
  const teams = useAllTeams();
  const teamName = (id: string) => teams.data?.find((t) => t.id === id)?.name ?? id.slice(0, 8);

  const columns: Column<ApiToken>[] = [
    { header: 'Name', essential: true, cell: (t) => <strong>{t.name}</strong> },
    { header: 'Created', cell: (t) => formatTime(t.createdAt) },
    { header: 'Expires', cell: (t) => (t.expiresAt ? formatTime(t.expiresAt) : 'Never') },
    { header: 'Last used', cell: (t) => (t.lastUsedAt ? formatTime(t.lastUsedAt) : 'Not yet') },
    { header: 'Scope', cell: (t) => scopeText(t, teamName) },
    {
      header: 'Actions', essential: true, cell: (t) => (
        <ConfirmButton
          title={`Delete the token ${t.name}?`} confirmLabel="Delete" action={() => api.me.revokeToken(t.id)} onDone={() => void refresh()}
          description="Scripts and CLI sessions that use it are refused from now on."
        >Delete<span className="visually-hidden"> {t.name}</span></ConfirmButton>
      ),
    },
  ];

  return (
    <section>
      <h1>API tokens</h1>
      <p className="lede">Personal tokens act as you, with your rights or fewer (a limited token), for scripts and the <code>cairn</code> CLI: send <code>Authorization: Bearer &lt;token&gt;</code>.</p>
      {created ? (
        <ShownOnce title={`New API token ${created.name}`} onDone={() => setCreated(undefined)}>
          <CopyField label="Token" value={created.token} />
        </ShownOnce>
      ) : null}
      <ProblemAlert error={tokens.error} />
      {tokens.data ? <DataTable caption="Your API tokens" columns={columns} rows={tokens.data.items} rowKey={(t) => t.id} empty="No tokens yet." /> : tokens.error ? null : <Loading what="your tokens" />}
      <Pager pager={pager} nextCursor={tokens.data?.nextCursor} label="Token pages" />
      <NewTokenForm teams={teams.data ?? []} onCreated={(t) => { setCreated(t); void refresh(); }} />
    </section>
  );
}

/** What a token may do, in words: everything you may, or its permissions in its teams. */
function scopeText(t: ApiToken, teamName: (id: string) => string): string {
  if (!t.permissions && !t.teamIds) return 'Everything you can do';
  const what = t.permissions ? t.permissions.join(', ') : 'all your team permissions';
  return `${what} in ${t.teamIds ? t.teamIds.map(teamName).join(', ') : 'all your teams'}`;
}

function NewTokenForm({ onCreated, teams }: { onCreated: (token: CreatedApiToken) => void; teams: Team[] }) {
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [scope, setScope] = useState<ScopeFields>(unscopedFields);
  const create = useMutation({
    mutationFn: api.me.createToken,
    onSuccess: (token) => {
      setName('');
      setExpires('');
      setScope(unscopedFields);
      onCreated(token);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const body: CreateApiToken = { name: name.trim(), ...scopeBody(scope) };
    if (expires) body.expiresAt = endOfDay(expires);
    create.mutate(body);
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">New token</h2>
      <TextField label="Name" field="name" error={create.error} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" hint="What uses it, e.g. deploy script." required />
      <TextField label="Expires (optional)" field="expiresAt" type="date" error={create.error} value={expires} onChange={(e) => setExpires(e.target.value)} hint="It stops working at the end of that day. Empty: never." />
      <TokenScopeFields value={scope} onChange={setScope} teams={teams} error={create.error} />
      <FormProblem error={create.error} fields={['name', 'expiresAt', 'permissions', 'teamIds']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating token…' : 'Create token'}</button>
      </div>
    </form>
  );
}
