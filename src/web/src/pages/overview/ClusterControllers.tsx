import type { ClusterController } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { formatTime } from '../../format/units';
import { shortControllerId } from '../nodes/node-format';

const columns: Column<ClusterController>[] = [
  { header: 'Controller', essential: true, cell: (c) => <code title={c.id}>{shortControllerId(c.id)}</code> },
  { header: 'Agent link', essential: true, cell: (c) => <code>{c.address}</code> },
  { header: 'HTTP', cell: (c) => (c.httpAddress ? <code>{c.httpAddress}</code> : '—') },
  { header: 'Nodes driven', essential: true, cell: (c) => String(c.nodes) },
  { header: 'Started', cell: (c) => formatTime(c.startedAt) },
  { header: 'Last seen', cell: (c) => formatTime(c.lastSeenAt, { seconds: true }) },
];

/** Every Controller sharing the store, and how many Nodes each drives (one row on the embedded store). */
export function ClusterControllers({ controllers }: { controllers: ClusterController[] }) {
  return <DataTable caption="Controllers" columns={columns} rows={controllers} rowKey={(c) => c.id} empty="No Controller has registered." />;
}
