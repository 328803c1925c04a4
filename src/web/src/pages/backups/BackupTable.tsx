import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Backup, BackupDestination, ServerDetail, ServerListItem } from '../../api/types';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { formatBytes, formatTime } from '../../format/units';
import { backupStateClass, formatSoftware, isUnfinished } from './backup-format';
import { RestoreStatus } from './RestoreStatus';
import { ServerLink } from './ServerLink';
import { rememberServer } from '../../api/server-cache';

interface BackupTableProps {
  caption: string;
  backups: Backup[] | undefined;
  /** The name of a backup's server, for the dialogs. */
  serverName: (serverId: string) => string;
  /** A Server column links each backup's server (the Backups page); names come from `servers`. */
  showServer?: boolean;
  servers?: ServerListItem[];
  /** Known only to global administrators; others see short ids. */
  destinations?: BackupDestination[];
}

const destinationName = (destinations: BackupDestination[] | undefined, id: string) => destinations?.find((d) => d.id === id)?.name ?? id.slice(0, 8);

/** Backups newest first, each with Restore (finished well) and Delete (finished), both behind a dialog. */
export function BackupTable({ caption, backups, serverName, showServer, servers, destinations }: BackupTableProps) {
  const client = useQueryClient();
  const [restoring, setRestoring] = useState<Backup>();
  const [deleting, setDeleting] = useState<Backup>();
  const [restored, setRestored] = useState<ServerDetail>();
  const restore = useMutation({
    mutationFn: (b: Backup) => api.backups.restore(b.id),
    onSuccess: (detail) => {
      setRestoring(undefined);
      setRestored(detail);
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.backups.all });
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const remove = useMutation({
    mutationFn: (b: Backup) => api.backups.delete(b.id),
    onSuccess: () => {
      setDeleting(undefined);
      void client.invalidateQueries({ queryKey: queryKeys.backups.all });
    },
  });
  // To the second: a PRE_RESTORE backup and the backup restored from are often a minute apart or less.
  const when = (b: Backup) => formatTime(b.startedAt, { seconds: true });

  const columns: Column<Backup>[] = [
    { header: 'Started', essential: true, cell: (b) => when(b) },
    ...(showServer ? [{ header: 'Server', essential: true, cell: (b: Backup) => <ServerLink id={b.serverId} servers={servers} /> }] : []),
    { header: 'Trigger', essential: true, cell: (b) => <span className="state">{b.trigger}</span> },
    {
      header: 'State', essential: true, cell: (b) => (
        <>
          <span className={backupStateClass(b.state)}>{b.state}</span>
          {b.state === 'FAILED' && b.error ? <div className="backup-error">{b.error}</div> : null}
        </>
      ),
    },
    { header: 'Size', essential: true, cell: (b) => (isUnfinished(b) ? '—' : formatBytes(b.sizeBytes)) },
    { header: 'Stored', cell: (b) => (isUnfinished(b) ? '—' : formatBytes(b.storedBytes)) },
    { header: 'Files', cell: (b) => (isUnfinished(b) ? '—' : b.fileCount) },
    { header: 'Software', cell: (b) => formatSoftware(b.software) },
    { header: 'Destination', cell: (b) => destinationName(destinations, b.destinationId) },
    {
      header: 'Actions', essential: true, cell: (b) => (
        <div className="row-actions">
          {b.state === 'SUCCEEDED' ? (
            <button type="button" onClick={() => { restore.reset(); setRestoring(b); }}>Restore<span className="visually-hidden"> the backup of {when(b)}</span></button>
          ) : null}
          {isUnfinished(b) ? null : (
            <button type="button" className="danger-outline" onClick={() => { remove.reset(); setDeleting(b); }}>Delete<span className="visually-hidden"> the backup of {when(b)}</span></button>
          )}
        </div>
      ),
    },
  ];

  return (
    <>
      {restored ? <RestoreStatus restored={restored} /> : null}
      <DataTable caption={caption} columns={columns} rows={backups} rowKey={(b) => b.id} empty="No backups yet." />
      <ConfirmDialog open={restoring !== undefined} title={`Restore ${restoring ? serverName(restoring.serverId) : ''}?`} confirmLabel="Restore"
        onConfirm={() => restoring && restore.mutate(restoring)} onCancel={() => setRestoring(undefined)} pending={restore.isPending} error={restore.error}>
        {restoring ? (
          <>
            <p>{serverName(restoring.serverId)} will be stopped and its files replaced by the backup of {when(restoring)} ({formatSoftware(restoring.software)}).</p>
            <p>A <span className="state">PRE_RESTORE</span> backup of its files as they are now is taken first, to the same destination. Afterwards the server returns to its desired runtime state.</p>
          </>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog open={deleting !== undefined} title="Delete this backup?" confirmLabel="Delete"
        onConfirm={() => deleting && remove.mutate(deleting)} onCancel={() => setDeleting(undefined)} pending={remove.isPending} error={remove.error}>
        {deleting ? <p>The backup of {serverName(deleting.serverId)} taken {when(deleting)} is deleted from its destination. This cannot be undone.</p> : null}
      </ConfirmDialog>
    </>
  );
}
