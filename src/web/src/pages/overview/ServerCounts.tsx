import { Link } from 'react-router';
import type { ServerListItem } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { StateText } from '../servers/server-state';
import { shownRuntime, type ShownState } from '../servers/shown-runtime';
import { tally } from './tally';

type Count = [ShownState, number];

function CountTable({ title, rows }: { title: 'Phase' | 'Runtime state' | 'Convergence'; rows: Count[] }) {
  const columns: Column<Count>[] = [
    { header: title, essential: true, cell: ([value]) => <StateText value={value} /> },
    { header: 'Servers', essential: true, cell: ([, count]) => count },
  ];
  return (
    <div>
      <h3>By {title.toLowerCase()}</h3>
      <DataTable caption={`Servers by ${title.toLowerCase()}`} columns={columns} rows={rows} rowKey={([value]) => value} empty="No servers." />
    </div>
  );
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * How many servers are in each phase, runtime state and convergence, and which ones have
 * conditions to look at. A sleeping server counts as SLEEPING, apart from the STOPPED ones: it is
 * stopped for want of players, yet meant to run.
 */
export function ServerCounts({ servers }: { servers: ServerListItem[] }) {
  const troubled = servers.filter((s) => s.conditionCount > 0);
  const sleeping = servers.filter((s) => s.sleeping).length;
  return (
    <section aria-labelledby="overview-servers">
      <h2 id="overview-servers">Servers</h2>
      <p>{plural(servers.length, 'server')} in all.{sleeping > 0 ? ` ${sleeping} sleeping.` : ''} <Link to="/servers">All servers</Link></p>
      <div className="overview-grid">
        <CountTable title="Phase" rows={tally(servers, (s) => s.phase)} />
        {/* A server whose Node has not reported its game yet has no runtime state: UNKNOWN, as its convergence says. */}
        <CountTable title="Runtime state" rows={tally(servers, (s) => shownRuntime(s) ?? 'UNKNOWN')} />
        <CountTable title="Convergence" rows={tally(servers, (s) => s.convergence)} />
      </div>
      <h3 id="overview-conditions">With conditions</h3>
      {troubled.length === 0 ? <p>No server has a condition.</p> : (
        <ul aria-labelledby="overview-conditions">
          {troubled.map((s) => <li key={s.id}><Link to={`/servers/${s.id}`}>{s.name}</Link>: {plural(s.conditionCount, 'condition')}</li>)}
        </ul>
      )}
    </section>
  );
}
