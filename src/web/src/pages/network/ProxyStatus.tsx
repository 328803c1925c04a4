import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes } from '../../api/reference-data';
import type { ServerDetail } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatPlayers } from '../../format/units';
import { StateText } from '../servers/server-state';
import { splitDetails } from '../../format/failure-text';

interface Why {
  words: string;
  details: string[];
}

/**
 * Why the proxy is FAILED or CRASHED, in its own words: the Controller's failure condition, else
 * the Agent's conditions (a crash loop), else its last exit. Each condition once (the detail lists
 * the Agent's conditions in both arrays); hashes and URLs go to the details. Undefined while it is neither.
 */
function failureOf(p: ServerDetail): Why | undefined {
  if (p.phase !== 'FAILED' && p.status.runtimeState !== 'CRASHED') return undefined;
  const seen = new Set<string>();
  const conditions = [...p.conditions, ...p.status.conditions].filter((c) => !seen.has(c.id) && seen.add(c.id));
  if (conditions.length > 0) {
    const parts = conditions.map((c) => ({ reason: c.reason, ...splitDetails(c.message) }));
    return { words: parts.map((c) => `${c.reason}: ${c.words}`).join('; '), details: parts.flatMap((c) => c.details) };
  }
  const crash = p.status.lastCrash;
  if (crash) return { words: `exited${crash.exitCode !== undefined ? ` with code ${crash.exitCode}` : ''}${crash.signal ? ` on ${crash.signal}` : ''}${crash.reason ? ` (${crash.reason})` : ''}`, details: [] };
  return { words: 'no reason was reported', details: [] };
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
        {failure ? (
          <><dt>Why</dt><dd className="why" role="alert">
            {failure.words}
            {failure.details.length > 0 ? <details><summary>Details</summary>{failure.details.map((d) => <code key={d}>{d}</code>)}</details> : null}
          </dd></>
        ) : null}
        <dt>Convergence</dt><dd><StateText value={p?.convergence} /></dd>
        <dt>Node</dt><dd>{nameOf(nodes.data, p?.nodeId)}</dd>
        <dt>Software</dt><dd>{p ? `${p.software.template} ${p.software.version}` : '—'}</dd>
      </dl>
    </>
  );
}
