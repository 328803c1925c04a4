import { useQuery } from '@tanstack/react-query';
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
import { useServerWatch } from './use-server-watch';

const workflowPollMs = 2_000;

/** One server: its states as the API names them, power, conditions, and a tab per kind of work. */
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
      <dl className="facts">
        <dt>Phase</dt><dd><StateText value={s.phase} /></dd>
        <dt>Runtime state</dt><dd><StateText value={s.status.runtimeState} /></dd>
        <dt>Convergence</dt><dd><StateText value={s.convergence} /></dd>
        <dt>Desired state</dt><dd><span className="state">{s.desiredState}</span></dd>
        <dt>Generation</dt>
        <dd>generation {s.generation}, observed {s.observedGeneration}{converging ? ' (the Node is applying the latest change)' : ''}</dd>
        {s.markers.length > 0 ? <><dt>Markers</dt><dd>{s.markers.map((m) => <span key={m} className="marker" title="Takes a network change at its next start">{m}</span>)}</dd></> : null}
        {s.workflow ? (
          <>
            <dt>Workflow</dt>
            <dd role="status"><progress aria-label={`${s.workflow.kind} in progress`} /> {s.workflow.kind}: {s.workflow.step} (since {formatTime(s.workflow.startedAt)})</dd>
          </>
        ) : null}
        <dt>Team</dt><dd>{nameOf(teams.data, s.teamId)}</dd>
        <dt>Node</dt><dd>{nameOf(nodes.data, s.nodeId)}</dd>
        <dt>Resources</dt><dd>{formatCpu(s.resources.cpuMillis)}, {formatBytes(s.resources.memoryBytes)}</dd>
        <dt>Game port</dt><dd>{s.gamePort ?? '—'}</dd>
      </dl>
      <Conditions server={s} />
      <SoftwareCard server={s} />
      <ServerTabs server={s} />
    </section>
  );
}
