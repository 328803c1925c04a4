import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { ConfirmButton } from '../../components/ConfirmButton';
import { NewDestinationForm } from './NewDestinationForm';
import { RotateKeyForm } from './RotateKeyForm';
import type { useDestinations } from './use-destinations';

/** An S3 destination's objects, as one address: the endpoint, the bucket and the prefix. */
const s3Where = (d: BackupDestination) => `${d.endpoint ?? ''} ${[d.bucket, d.prefix].filter(Boolean).join('/')} (key ${d.accessKeyId ?? ''})`;

/**
 * Where backups are kept (global administrators): the list, Rotate key for S3 ones, Delete (refused
 * while backups or schedules use one) and a form.
 */
export function DestinationsSection({ destinations }: { destinations: ReturnType<typeof useDestinations>['destinations'] }) {
  const client = useQueryClient();
  // The id, not the row: the form follows the destination through the list's refetches.
  const [rotating, setRotating] = useState<string>();
  const [rotated, setRotated] = useState<string>();
  const rotatingDestination = destinations.data?.find((d) => d.id === rotating);
  const columns: Column<BackupDestination>[] = [
    { header: 'Name', essential: true, cell: (d) => <strong>{d.name}</strong> },
    { header: 'Kind', essential: true, cell: (d) => <span className="state">{d.kind}</span> },
    { header: 'Where', cell: (d) => (d.path ? <code className="path">{d.path}</code> : d.bucket ? <code className="path">{s3Where(d)}</code> : '—') },
    { header: 'Created', cell: (d) => formatTime(d.createdAt) },
    {
      header: 'Actions', essential: true, cell: (d) => (
        <div className="row-actions">
          {d.kind === 'S3' ? (
            <button type="button" aria-expanded={rotating === d.id} onClick={() => { setRotated(undefined); setRotating(d.id); }}>
              Rotate key<span className="visually-hidden"> for {d.name}</span>
            </button>
          ) : null}
          <ConfirmButton title={`Delete ${d.name}?`} confirmLabel="Delete" action={() => api.backupDestinations.delete(d.id)}
            onDone={() => void client.invalidateQueries({ queryKey: queryKeys.backupDestinations })}
            description="The destination is removed. One that backups or schedules still use cannot be deleted: delete them first.">
            Delete<span className="visually-hidden"> {d.name}</span>
          </ConfirmButton>
        </div>
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
      {rotated ? <p role="status" className="success">Key of {rotated} rotated.</p> : null}
      {rotatingDestination ? (
        // Keyed by id: opening another destination's form starts it afresh rather than keeping what was typed for the last one.
        <RotateKeyForm key={rotatingDestination.id} destination={rotatingDestination}
          onDone={(updated) => { setRotating(undefined); setRotated(updated.name); }} onCancel={() => setRotating(undefined)} />
      ) : null}
      <NewDestinationForm />
    </section>
  );
}
