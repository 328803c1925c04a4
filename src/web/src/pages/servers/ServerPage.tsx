import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes, useAllTeams } from '../../api/reference-data';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCpu, formatTime } from '../../format/units';
import { Conditions } from './Conditions';
import { PowerButtons } from './PowerButtons';
import { StateText } from './server-state';
import { ServerTabs } from './ServerTabs';
import { SoftwareCard } from './software/SoftwareCard';
import { UsageSection } from './usage/UsageSection';
import { useServerWatch } from './use-server-watch';

const workflowPollMs = 2_000;

/** One term and its description, kept together as one cell of the facts grid. */
function Fact({ term, wide, children }: { term: string; wide?: boolean; children: ReactNode }) {
  return <div className={wide ? 'fact wide' : 'fact'}><dt>{term}</dt><dd>{children}</dd></div>;
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
  useServerWatch();
  if (server.error) return <section><h1>Server</h1><ProblemAlert error={server.error} /></section>;
  if (!server.data) return <Loading what="the server" />;
  const s = server.data;
  const converging = s.observedGeneration < s.generation;
  return (
    <section>
      <div className="page-head">
        <h1>{s.name}</h1>
        <PowerButtons server={s} />
      </div>
      {/* Pairs in a grid of columns beside the Software card: the head takes a few lines, so the tabs and the console stay in view. */}
      <div className="server-overview">
        <dl className="facts compact">
          <Fact term="Phase"><StateText value={s.phase} /></Fact>
          <Fact term="Runtime state"><StateText value={s.status.runtimeState} /></Fact>
          <Fact term="Convergence"><StateText value={s.convergence} /></Fact>
          <Fact term="Desired state"><span className="state">{s.desiredState}</span></Fact>
          <Fact term="Generation">
            generation {s.generation}, observed {s.observedGeneration}{converging ? ' (the Node is applying the latest change)' : ''}
          </Fact>
          {s.markers.length > 0 ? <Fact term="Markers">{s.markers.map((m) => <span key={m} className="marker" title="Takes a network change at its next start">{m}</span>)}</Fact> : null}
          <Fact term="Team">{nameOf(teams.data, s.teamId)}</Fact>
          <Fact term="Node">{nameOf(nodes.data, s.nodeId)}</Fact>
          <Fact term="Resources">{formatCpu(s.resources.cpuMillis)}, {formatBytes(s.resources.memoryBytes)}</Fact>
          <Fact term="Game port">{s.gamePort ?? '—'}</Fact>
          {s.workflow ? (
            <Fact term="Workflow" wide>
              <span role="status"><progress aria-label={`${s.workflow.kind} in progress`} /> {s.workflow.kind}: {s.workflow.step} (since {formatTime(s.workflow.startedAt)})</span>
            </Fact>
          ) : null}
        </dl>
        <SoftwareCard server={s} />
      </div>
      <Conditions server={s} />
      <ServerTabs server={s} />
      {/* After the tabs: the console's command box stays in view on a laptop screen. */}
      <UsageSection server={s} />
    </section>
  );
}
