import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes } from '../../api/reference-data';
import type { ServerDetail } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatPlayers } from '../../format/units';
import { StateText } from '../servers/server-state';

/**
 * Why the proxy is FAILED or CRASHED, in its own words: the Controller's failure condition, else
 * the Agent's conditions (a crash loop), else its last exit. Undefined while it is neither.
 */
function failureOf(p: ServerDetail): string | undefined {
  if (p.phase !== 'FAILED' && p.status.runtimeState !== 'CRASHED') return undefined;
  const conditions = [...p.conditions, ...p.status.conditions];
  if (conditions.length > 0) return conditions.map((c) => `${c.reason}: ${c.message}`).join('; ');
  const crash = p.status.lastCrash;
  if (crash) return `exited${crash.exitCode !== undefined ? ` with code ${crash.exitCode}` : ''}${crash.signal ? ` on ${crash.signal}` : ''}${crash.reason ? ` (${crash.reason})` : ''}`;
  return 'no reason was reported';
}

/** The players it carries, the proxy's states (and why it failed, when it did), kept live by the servers watch stream the page holds open. */
export function ProxyStatus({ proxyId }: { proxyId: string }) {
  const proxy = useQuery({ queryKey: queryKeys.servers.detail(proxyId), queryFn: () => api.servers.get(proxyId) });
  const nodes = useAllNodes();
  if (proxy.error) return <ProblemAlert error={proxy.error} />;
  const p = proxy.data;
  const failure = p ? failureOf(p) : undefined;
  const players = !p ? '—' : p.status.runtimeState === 'RUNNING' ? formatPlayers(p.status.players, p.playersOnline) : 'none (the proxy is not running)';
  return (
    <>
      {/* Everyone on the network comes in through the proxy: its count is the network's. */}
      <p>Players online: <strong>{players}</strong></p>
      <dl className="facts">
        <dt>Server</dt><dd><Link to={`/servers/${proxyId}`}>{p?.name ?? 'The proxy'}</Link></dd>
        <dt>Phase</dt><dd><StateText value={p?.phase} /></dd>
        <dt>Runtime state</dt><dd><StateText value={p?.status.runtimeState} /></dd>
        {failure ? <><dt>Why</dt><dd role="alert">{failure}</dd></> : null}
        <dt>Convergence</dt><dd><StateText value={p?.convergence} /></dd>
        <dt>Node</dt><dd>{nameOf(nodes.data, p?.nodeId)}</dd>
        <dt>Software</dt><dd>{p ? `${p.software.template} ${p.software.version}` : '—'}</dd>
      </dl>
    </>
  );
}
