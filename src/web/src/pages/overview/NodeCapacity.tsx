import { Link } from 'react-router';
import type { Node } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { formatBytes, formatCores } from '../../format/units';
import { connectionStateClass } from '../nodes/node-format';

/** "1.5 CPU of 8 CPU"; a Node whose Agent has not reported offers nothing yet. */
const ofTotal = (amount: number, total: number, format: (n: number) => string) =>
  (total > 0 ? `${format(amount)} of ${format(total)}` : `${format(amount)} (capacity not reported yet)`);

const columns: Column<Node>[] = [
  { header: 'Node', essential: true, cell: (n) => <Link className="name-link" to={`/nodes?node=${encodeURIComponent(n.id)}`}>{n.name}</Link> },
  { header: 'Connection', cell: (n) => <span className={connectionStateClass(n.status.connectionState)}>{n.status.connectionState}</span> },
  { header: 'CPU reserved', essential: true, cell: (n) => ofTotal(n.reserved.cpuMillis, n.status.allocatable.cpuMillis, formatCores) },
  { header: 'CPU used', essential: true, cell: (n) => formatCores(n.status.usage.cpuMillis) },
  { header: 'Memory reserved', essential: true, cell: (n) => ofTotal(n.reserved.memoryBytes, n.status.allocatable.memoryBytes, formatBytes) },
  { header: 'Memory used', essential: true, cell: (n) => formatBytes(n.status.usage.memoryBytes) },
];

/**
 * What servers reserve on each Node (placement counts these) beside what its games use now:
 * reserved says where a new server fits, used says how busy the host really is.
 */
export function NodeCapacity({ nodes }: { nodes: Node[] }) {
  return <DataTable caption="Nodes' capacity" columns={columns} rows={nodes} rowKey={(n) => n.id} empty="No Nodes yet." />;
}
