import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { api } from '../../api/client';
import { asProblem } from '../../api/problem';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes, useAllTeams } from '../../api/reference-data';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCpu, formatTime } from '../../format/units';
import { Conditions } from './Conditions';
import { CrashNotice } from './CrashNotice';
import { PlayerAddress } from './PlayerAddress';
import { PowerButtons } from './PowerButtons';
import { RuntimeState } from './RuntimeState';
import { StateWithWords } from './server-state';
import { ServerTabs } from './ServerTabs';
import { StateLegend } from './StateLegend';
import { stateFields } from './state-words';
import './server-page.css';
import { UsageSection } from './usage/UsageSection';
import { useServerWatch } from './use-server-watch';

const workflowPollMs = 2_000;

/** One term and its description, kept together as one cell of the facts grid; `field` names it in the API, as its tooltip. */
function Fact({ term, field, wide, children }: { term: string; field?: string; wide?: boolean; children: ReactNode }) {
  return <div className={wide ? 'fact wide' : 'fact'}><dt title={field ? `API: ${field}` : undefined}>{term}</dt><dd>{children}</dd></div>;
}

/** A state fact of the API: its enum value with plain words beside it, its API field as the term's tooltip. */
function StateFact({ of, children }: { of: keyof typeof stateFields; children: ReactNode }) {
  const { term, field } = stateFields[of];
  return <Fact term={term} field={field}>{children}</Fact>;
}

/** One server: its states as the API names them, power, conditions, a tab per kind of work, and its usage. */
export function ServerPage() {
  const { serverId = '' } = useParams();
  // A workflow's steps (restore, migration, update) are read again as they go, whether or not the watch stream reports them.
  const server = useQuery({
    queryKey: queryKeys.servers.detail(serverId), queryFn: () => api.servers.get(serverId),
    refetchInterval: (query) => (query.state.data?.workflow ? workflowPollMs : false),
  });
  const teams = useAllTeams();
  const nodes = useAllNodes();
  const watch = useServerWatch();
  // A refetch that could not reach the Controller (a restart, or a reverse proxy's 502–504 meanwhile) keeps the page as last seen: the watch stream fetches it again once it is back.
  const unreachable = server.error && server.data && [0, 502, 503, 504].includes(asProblem(server.error).status);
  if (server.error && !unreachable) return <section><h1>Server</h1><ProblemAlert error={server.error} /></section>;
  if (!server.data) return <Loading what="the server" />;
  const s = server.data;
  const converging = s.observedGeneration < s.generation;
  return (
    <section>
      <div className="page-head">
        <h1>{s.name}</h1>
        <PowerButtons server={s} />
      </div>
      {/* The facts take a few lines and the software has its own tab, so the console is on the first screen of a laptop. */}
      <dl className="facts compact server-facts">
        <StateFact of="phase"><StateWithWords value={s.phase} /></StateFact>
        <StateFact of="runtime"><RuntimeState server={s} /></StateFact>
        <StateFact of="convergence"><StateWithWords value={s.convergence} /></StateFact>
        <StateFact of="desired"><span className="state">{s.desiredState}</span></StateFact>
        <StateFact of="generation">
          generation {s.generation}, observed {s.observedGeneration}{converging ? ' (the Node is applying the latest change)' : <span className="state-words"> every change applied</span>}
        </StateFact>
        {s.markers.length > 0 ? <Fact term="Markers">{s.markers.map((m) => <span key={m} className="marker" title="Takes a network change at its next start">{m}</span>)}</Fact> : null}
        <Fact term="Players connect to" field={s.inNetwork || s.kind === 'PROXY' ? 'GET /network address:port' : 'Node reachAddress:gamePort'}><PlayerAddress server={s} /></Fact>
        <Fact term="Team">{nameOf(teams.data, s.teamId)}</Fact>
        <Fact term="Node">{nameOf(nodes.data, s.nodeId)}</Fact>
        <Fact term="Software">{s.software.template} {s.software.version}</Fact>
        <Fact term="Resources">{formatCpu(s.resources.cpuMillis)}, {formatBytes(s.resources.memoryBytes)}</Fact>
        <Fact term="Game port">{s.gamePort ?? '—'}</Fact>
        {s.workflow ? (
          <Fact term="Workflow" wide>
            <span role="status"><progress aria-label={`${s.workflow.kind} in progress`} /> {s.workflow.kind}: {s.workflow.step} (since {formatTime(s.workflow.startedAt)})</span>
          </Fact>
        ) : null}
      </dl>
      {watch.kind === 'retrying' ? <p className="console-status" role="status">Live updates interrupted; reconnecting…</p> : null}
      <StateLegend />
      <CrashNotice server={s} />
      <Conditions server={s} />
      <ServerTabs server={s} />
      {/* After the tabs: the console's command box stays in view on a laptop screen. */}
      <UsageSection server={s} />
    </section>
  );
}
