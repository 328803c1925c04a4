import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes } from '../../api/reference-data';
import { ProblemAlert } from '../../components/ProblemAlert';
import { StateText } from '../servers/server-state';

/** The proxy's states, kept live by the servers watch stream the page holds open. */
export function ProxyStatus({ proxyId }: { proxyId: string }) {
  const proxy = useQuery({ queryKey: queryKeys.servers.detail(proxyId), queryFn: () => api.servers.get(proxyId) });
  const nodes = useAllNodes();
  if (proxy.error) return <ProblemAlert error={proxy.error} />;
  const p = proxy.data;
  return (
    <dl className="facts">
      <dt>Server</dt><dd><Link to={`/servers/${proxyId}`}>{p?.name ?? 'The proxy'}</Link></dd>
      <dt>Phase</dt><dd><StateText value={p?.phase} /></dd>
      <dt>Runtime state</dt><dd><StateText value={p?.status.runtimeState} /></dd>
      <dt>Convergence</dt><dd><StateText value={p?.convergence} /></dd>
      <dt>Node</dt><dd>{nameOf(nodes.data, p?.nodeId)}</dd>
      <dt>Software</dt><dd>{p ? `${p.software.template} ${p.software.version}` : '—'}</dd>
    </dl>
  );
}
