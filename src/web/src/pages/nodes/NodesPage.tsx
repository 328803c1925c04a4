import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { EnrollmentIssued, Node } from '../../api/types';
import { mayManageNodes, useMe } from '../../app/session';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCores } from '../../format/units';
import { CapacityMeter } from '../../components/CapacityMeter';
import '../admin.css';
import { EnrollmentCommand } from './EnrollmentCommand';
import { NewNodeForm } from './NewNodeForm';
import { NodeDetail } from './NodeDetail';
import { adminStateClass, connectionStateClass, shortControllerId } from './node-format';

/** Nodes change state on their own (heartbeats, pressure): the list is read again this often. */
const refreshMs = 5_000;

const columns: Column<Node>[] = [
  { header: 'Name', essential: true, cell: (n) => <Link className="name-link" to={`?node=${encodeURIComponent(n.id)}`}>{n.name}</Link> },
  { header: 'Admin state', essential: true, cell: (n) => <span className={adminStateClass(n.adminState)}>{n.adminState}</span> },
  { header: 'Connection', essential: true, cell: (n) => <span className={connectionStateClass(n.status.connectionState)}>{n.status.connectionState}</span> },
  { header: 'Placements', cell: (n) => (n.acceptsPlacements ? 'Accepted' : 'None') },
  { header: 'Controller', cell: (n) => (n.status.controllerId ? <code title={n.status.controllerId}>{shortControllerId(n.status.controllerId)}</code> : '—') },
  { header: 'Reach address', cell: (n) => (n.reachAddress ? <code>{n.reachAddress}</code> : '—') },
  {
    header: 'Capacity', cell: (n) => (
      <div className="capacity-cell">
        <CapacityMeter label="CPU" reserved={n.reserved.cpuMillis} total={n.status.allocatable.cpuMillis} format={formatCores} />
        <CapacityMeter label="Memory" reserved={n.reserved.memoryBytes} total={n.status.allocatable.memoryBytes} format={formatBytes} />
      </div>
    ),
  },
  {
    header: 'Conditions', cell: (n) => (n.conditions.length === 0 ? '—' : (
      <ul className="plain-list">{n.conditions.map((c) => <li key={c.id} title={c.message}><span className="state busy">{c.reason}</span></li>)}</ul>
    )),
  },
];

export function NodesPage() {
  const me = useMe();
  const manage = mayManageNodes(me.data);
  const [params, setParams] = useSearchParams();
  const selected = params.get('node');
  const pager = useCursorPager();
  const nodes = useQuery({ queryKey: queryKeys.nodes.list(pager.cursor), queryFn: () => api.nodes.list({ cursor: pager.cursor }), refetchInterval: refreshMs });
  const [enrollment, setEnrollment] = useState<EnrollmentIssued>();
  return (
    <section>
      <h1>Nodes</h1>
      <p className="lede">The hosts that run game servers. A Node takes new servers only while it is <code>ENABLED</code> and <code>HEALTHY</code>.</p>
      {enrollment ? <EnrollmentCommand key={enrollment.enrollmentToken} issued={enrollment} onDone={() => setEnrollment(undefined)} /> : null}
      <ProblemAlert error={nodes.error} />
      {nodes.data ? <DataTable caption="Nodes" columns={columns} rows={nodes.data.items} rowKey={(n) => n.id} empty={manage ? 'No Nodes yet: create one below.' : 'No Nodes you can see.'} /> : nodes.error ? null : <Loading what="Nodes" />}
      <Pager pager={pager} nextCursor={nodes.data?.nextCursor} label="Nodes pages" />
      {selected ? (
        <NodeDetail key={selected} nodeId={selected} manage={manage} onEnrollment={setEnrollment} onClose={() => setParams({})} />
      ) : null}
      {manage ? <NewNodeForm onCreated={setEnrollment} /> : null}
    </section>
  );
}
