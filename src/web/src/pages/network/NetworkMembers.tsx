import { useQueries, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Network, NetworkRoute, ServerListItem } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { ProblemAlert } from '../../components/ProblemAlert';
import { StateText } from '../servers/server-state';
import { shownRuntime } from '../servers/shown-runtime';
import { LobbyForm } from './LobbyForm';

const memberFilter = { inNetwork: true, limit: 200 } as const;
/** Routes change when members start or stop on their Nodes; the watch stream does not carry them. */
const routesRefetchMs = 3_000;

interface MemberRow {
  server: ServerListItem;
  route?: NetworkRoute;
  restartPending: boolean;
  lobby: boolean;
}

/**
 * Routed only while the member runs or sleeps (its players are told it is starting, and a join
 * wakes it): the routes are polled, the runtime state is live, so a member that stopped or
 * crashed since the last poll is not shown as routed.
 */
function RouteText({ row }: { row: MemberRow }) {
  const running = row.server.runtimeState === 'RUNNING';
  if (row.route && row.server.sleeping) return <>routed to <code>{row.route.address}:{row.route.port}</code> (sleeping)</>;
  if (row.route && running) return <>routed to <code>{row.route.address}:{row.route.port}</code></>;
  return <>not routed{running ? '' : ` (${row.server.runtimeState ?? 'not running'})`}</>;
}

const columns: Column<MemberRow>[] = [
  { header: 'Name', essential: true, cell: (r) => <Link to={`/servers/${r.server.id}`}>{r.server.name}</Link> },
  { header: 'Runtime state', cell: (r) => <StateText value={shownRuntime(r.server)} /> },
  { header: 'Route', essential: true, cell: (r) => <RouteText row={r} /> },
  { header: 'Markers', essential: true, cell: (r) => (r.restartPending ? <span className="marker" title="Takes its network change at its next start">RESTART_PENDING</span> : '—') },
  { header: 'Lobby', cell: (r) => (r.lobby ? 'lobby' : '') },
];

/** The servers meant to be members, whether the proxy routes to each, and the lobby choice. */
export function NetworkMembers({ network, admin }: { network: Network; admin: boolean }) {
  const members = useQuery({ queryKey: queryKeys.servers.list(memberFilter), queryFn: () => api.servers.list(memberFilter) });
  const routes = useQuery({ queryKey: queryKeys.network.routes, queryFn: api.network.routes, refetchInterval: routesRefetchMs });
  // RESTART_PENDING is only in a server's detail; the watch stream refreshes cached details.
  const details = useQueries({
    queries: (members.data?.items ?? []).map((s) => ({ queryKey: queryKeys.servers.detail(s.id), queryFn: () => api.servers.get(s.id) })),
  });
  const rows = members.data?.items.map((server, i): MemberRow => ({
    server,
    route: routes.data?.items.find((r) => r.serverId === server.id),
    restartPending: details[i]?.data?.markers.includes('RESTART_PENDING') ?? false,
    lobby: network.lobbyServerId === server.id,
  }));
  return (
    <section className="card wide" aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <p className="hint">A server joins or leaves the network from its Settings tab; a running one takes the change at its next start.</p>
      <ProblemAlert error={members.error ?? routes.error} />
      <DataTable caption="Network members" columns={columns} rows={rows} rowKey={(r) => r.server.id} empty="No member yet." />
      {admin ? <LobbyForm network={network} members={members.data?.items ?? []} /> : (
        <p>Lobby: {members.data?.items.find((s) => s.id === network.lobbyServerId)?.name ?? 'none (players go to the first route)'}</p>
      )}
    </section>
  );
}
