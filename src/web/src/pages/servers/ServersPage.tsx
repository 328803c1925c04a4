import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes, useAllTeams } from '../../api/reference-data';
import type { Convergence, ServerListItem, ServerListQuery } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { SelectField } from '../../components/Field';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { StateText } from './server-state';
import { shownRuntime } from './shown-runtime';
import { useServerWatch } from './use-server-watch';

const convergenceValues: Convergence[] = ['CONVERGED', 'IN_PROGRESS', 'DISCREPANCY', 'UNKNOWN'];

/** Every server the caller can read, live from the watch stream, filtered and paged by the API. */
export function ServersPage() {
  const [filters, setFilters] = useState<Pick<ServerListQuery, 'teamId' | 'nodeId' | 'convergence'>>({});
  const pager = useCursorPager();
  const query: ServerListQuery = { ...filters, cursor: pager.cursor };
  const servers = useQuery({ queryKey: queryKeys.servers.list(query), queryFn: () => api.servers.list(query), placeholderData: keepPreviousData });
  const teams = useAllTeams();
  const nodes = useAllNodes();
  const watch = useServerWatch();
  const setFilter = (key: keyof typeof filters) => (e: { target: { value: string } }) => {
    pager.reset();
    setFilters({ ...filters, [key]: e.target.value || undefined });
  };

  const columns: Column<ServerListItem>[] = [
    { header: 'Name', essential: true, cell: (s) => <Link to={`/servers/${s.id}`}>{s.name}</Link> },
    { header: 'Team', cell: (s) => nameOf(teams.data, s.teamId) },
    { header: 'Node', cell: (s) => nameOf(nodes.data, s.nodeId) },
    { header: 'Phase', essential: true, cell: (s) => <StateText value={s.phase} /> },
    { header: 'Runtime state', essential: true, cell: (s) => <StateText value={shownRuntime(s)} /> },
    { header: 'Convergence', cell: (s) => <StateText value={s.convergence} /> },
    { header: 'Players', cell: (s) => s.playersOnline ?? '—' },
    { header: 'Generation', cell: (s) => s.generation },
    { header: 'Template', cell: (s) => `${s.software.template} ${s.software.version}` },
    { header: 'Game port', cell: (s) => s.gamePort ?? '—' },
  ];

  return (
    <section>
      <div className="page-head">
        <h1>Servers</h1>
        <Link className="button primary" to="/servers/new">New server</Link>
      </div>
      <div className="filters" role="search" aria-label="Filter servers">
        <SelectField label="Team" value={filters.teamId ?? ''} onChange={setFilter('teamId')}>
          <option value="">All teams</option>
          {teams.data?.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </SelectField>
        <SelectField label="Node" value={filters.nodeId ?? ''} onChange={setFilter('nodeId')}>
          <option value="">All Nodes</option>
          {nodes.data?.map((n) => <option key={n.id} value={n.id}>{n.name}</option>)}
        </SelectField>
        <SelectField label="Convergence" value={filters.convergence ?? ''} onChange={setFilter('convergence')}>
          <option value="">Any</option>
          {convergenceValues.map((c) => <option key={c} value={c}>{c}</option>)}
        </SelectField>
      </div>
      <p className="console-status" aria-live="polite">{watch.kind === 'open' ? 'Live.' : watch.kind === 'retrying' ? 'Live updates interrupted; reconnecting…' : 'Connecting live updates…'}</p>
      <ProblemAlert error={servers.error} />
      {servers.isPending ? <Loading what="servers" /> : (
        <DataTable caption="Servers" columns={columns} rows={servers.data?.items} rowKey={(s) => s.id}
          empty={<>No servers yet. <Link to="/servers/new">Create one</Link>.</>} />
      )}
      <Pager pager={pager} nextCursor={servers.data?.nextCursor} label="Server pages" />
    </section>
  );
}
