import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { ConfirmButton } from '../admin-components/ConfirmButton';
import { NewDestinationForm } from './NewDestinationForm';
import type { useDestinations } from './use-destinations';

/** An S3 destination's objects, as one address: the endpoint, the bucket and the prefix. */
const s3Where = (d: BackupDestination) => `${d.endpoint ?? ''} ${[d.bucket, d.prefix].filter(Boolean).join('/')} (key ${d.accessKeyId ?? ''})`;

/** Where backups are kept (global administrators): the list, Delete (refused while backups or schedules use one) and a form. */
export function DestinationsSection({ destinations }: { destinations: ReturnType<typeof useDestinations>['destinations'] }) {
  const client = useQueryClient();
  const columns: Column<BackupDestination>[] = [
    { header: 'Name', essential: true, cell: (d) => <strong>{d.name}</strong> },
    { header: 'Kind', essential: true, cell: (d) => <span className="state">{d.kind}</span> },
    { header: 'Where', cell: (d) => (d.path ? <code className="path">{d.path}</code> : d.bucket ? <code className="path">{s3Where(d)}</code> : '—') },
    { header: 'Created', cell: (d) => formatTime(d.createdAt) },
    {
      header: 'Actions', essential: true, cell: (d) => (
        <ConfirmButton title={`Delete ${d.name}?`} confirmLabel="Delete" action={() => api.backupDestinations.delete(d.id)}
          onDone={() => void client.invalidateQueries({ queryKey: queryKeys.backupDestinations })}
          description="The destination is removed. One that backups or schedules still use cannot be deleted: delete them first.">
          Delete<span className="visually-hidden"> {d.name}</span>
        </ConfirmButton>
      ),
    },
  ];
  return (
    <section className="card wide" aria-labelledby="destinations-heading">
      <h2 id="destinations-heading">Destinations</h2>
      <p className="hint">
        <span className="state">CONTROLLER</span> destinations are kept by the Controller and restore onto any Node;
        {' '}<span className="state">S3</span> ones in an S3-compatible bucket the Controller alone holds the key to, restorable onto any Node too;
        {' '}<span className="state">NODE_DIRECTORY</span> ones stay in a directory on the Node that took the backup.
      </p>
      <ProblemAlert error={destinations.error} />
      {destinations.isPending ? <Loading what="destinations" /> : (
        <DataTable caption="Backup destinations" columns={columns} rows={destinations.data} rowKey={(d) => d.id} empty="No destinations." />
      )}
      <NewDestinationForm />
    </section>
  );
}
