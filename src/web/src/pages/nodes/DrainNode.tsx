import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllNodes } from '../../api/reference-data';
import type { DrainStarted, Node, ServerDetail } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ProblemAlert } from '../../components/ProblemAlert';
import { workflowText } from '../backups/backup-format';
import { StateText } from '../servers/server-state';
import { adminStateClass } from './node-format';

const movingPollMs = 2_000;

const moved = (s: ServerDetail, from: string) => s.phase === 'READY' && !s.workflow && s.nodeId !== from;

/** Where a server of the drained Node is: its migration's step, moved, its last migration failed, or waiting its turn. */
function progressOf(s: ServerDetail, from: string, nodes: Node[] | undefined) {
  if (s.workflow) return workflowText(s.workflow);
  if (moved(s, from)) return <span className="success">moved to {nameOf(nodes, s.nodeId)}</span>;
  if (s.conditions.some((c) => c.reason === 'MIGRATION_FAILED')) return <span className="state bad">MIGRATION_FAILED</span>;
  return 'waiting its turn';
}

/** One server being moved off the drained Node, read again until it has moved (as the Node itself is read, while shown). */
function MovingServer({ serverId, from }: { serverId: string; from: string }) {
  const server = useQuery({
    queryKey: queryKeys.servers.detail(serverId), queryFn: () => api.servers.get(serverId),
    refetchInterval: (query) => (query.state.data && moved(query.state.data, from) ? false : movingPollMs),
  });
  const nodes = useAllNodes();
  const s = server.data;
  if (!s) return <li>{server.error ? <ProblemAlert error={server.error} /> : <span className="mono">{serverId.slice(0, 8)}</span>}</li>;
  return <li><Link to={`/servers/${s.id}`}>{s.name}</Link>: <StateText value={s.phase} /> {progressOf(s, from, nodes.data)}</li>;
}

/** What a drain started: the Node's admin state and each server being moved, live. */
export function DrainProgress({ node, drain }: { node: Node; drain: DrainStarted }) {
  const count = drain.serverIds.length;
  return (
    <section className="drain" aria-labelledby="drain-heading">
      <h3 id="drain-heading">Drain</h3>
      <p role="status">
        {node.name} is <span className={adminStateClass(drain.node.adminState)}>{drain.node.adminState}</span>.{' '}
        {count === 0 ? 'No servers were on it.' : `Moving ${count} server${count === 1 ? '' : 's'}:`}
      </p>
      {count > 0 ? <ul className="plain-list">{drain.serverIds.map((id) => <MovingServer key={id} serverId={id} from={node.id} />)}</ul> : null}
    </section>
  );
}

/** POST /nodes/{id}/drain behind a dialog: it disables the Node and moves every server off it. */
export function DrainButton({ node, onDrained }: { node: Node; onDrained: (started: DrainStarted) => void }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const drain = useMutation({
    mutationFn: () => api.nodes.drain(node.id),
    onSuccess: (started) => {
      setOpen(false);
      client.setQueryData(queryKeys.nodes.detail(node.id), started.node);
      void client.invalidateQueries({ queryKey: queryKeys.servers.all });
      onDrained(started);
    },
  });
  return (
    <>
      <button type="button" className="danger-outline" onClick={() => { drain.reset(); setOpen(true); }}>Drain<span className="visually-hidden"> {node.name}</span></button>
      <ConfirmDialog open={open} title={`Drain ${node.name}?`} confirmLabel="Drain" onConfirm={() => drain.mutate()} onCancel={() => setOpen(false)}
        pending={drain.isPending} error={drain.error}>
        <p>{node.name} is disabled, so it takes no new servers, and every server on it is migrated, one at a time, to the Node placement picks.</p>
        <p>Each server stops only for the last copy of its files and starts again where it was running.</p>
      </ConfirmDialog>
    </>
  );
}
