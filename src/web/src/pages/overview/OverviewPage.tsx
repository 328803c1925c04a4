import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { allPages } from '../../api/reference-data';
import { useMe } from '../../app/session';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import '../admin.css';
import { ClusterControllers } from './ClusterControllers';
import { NetworkPlayers } from './NetworkPlayers';
import { NodeCapacity } from './NodeCapacity';
import { ServerCounts } from './ServerCounts';
import './overview.css';

/** Counts move as servers change and players come and go; the whole fleet is read again this often. */
const refreshMs = 5_000;

/** The fleet at a glance: servers by state, those with conditions, the Nodes' capacity, and players. */
export function OverviewPage() {
  const servers = useQuery({ queryKey: queryKeys.servers.everything, queryFn: () => allPages(api.servers.list), refetchInterval: refreshMs });
  const nodes = useQuery({ queryKey: queryKeys.nodes.everything, queryFn: () => allPages(api.nodes.list), refetchInterval: refreshMs });
  const network = useQuery({ queryKey: queryKeys.network.record, queryFn: api.network.get });
  const proxyId = network.data?.proxyServerId ?? '';
  const admin = useMe().data?.globalAdmin === true;
  const cluster = useQuery({ queryKey: queryKeys.cluster, queryFn: api.cluster.get, enabled: admin, refetchInterval: refreshMs });
  const proxy = useQuery({ queryKey: queryKeys.servers.detail(proxyId), queryFn: () => api.servers.get(proxyId), enabled: proxyId !== '', refetchInterval: refreshMs });
  return (
    <section className="overview">
      <h1>Overview</h1>
      <ProblemAlert error={servers.error} />
      {servers.data ? <ServerCounts servers={servers.data} /> : servers.error ? null : <Loading what="servers" />}
      <section aria-labelledby="overview-nodes">
        <h2 id="overview-nodes">Nodes</h2>
        <ProblemAlert error={nodes.error} />
        {nodes.data ? <NodeCapacity nodes={nodes.data} /> : nodes.error ? null : <Loading what="Nodes" />}
      </section>
      {admin ? (
        <section aria-labelledby="overview-controllers">
          <h2 id="overview-controllers">Controllers</h2>
          <ProblemAlert error={cluster.error} />
          {cluster.data ? <ClusterControllers controllers={cluster.data.controllers} /> : cluster.error ? null : <Loading what="Controllers" />}
        </section>
      ) : null}
      <section aria-labelledby="overview-players">
        <h2 id="overview-players">Players online</h2>
        <ProblemAlert error={network.error ?? proxy.error} />
        {network.data && servers.data ? <NetworkPlayers network={network.data} servers={servers.data} proxy={proxy.data} /> : null}
      </section>
    </section>
  );
}
