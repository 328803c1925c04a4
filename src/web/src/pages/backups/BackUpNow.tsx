import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination, ServerDetail } from '../../api/types';
import { ProblemAlert } from '../../components/ProblemAlert';
import { defaultDestinationId } from './backup-format';
import { DestinationSelect } from './DestinationSelect';
import { StartedBackupStatus } from './StartedBackupStatus';

interface BackUpNowProps {
  server: ServerDetail;
  /** Global administrators choose one; others back up to the Controller's default. */
  destinations?: BackupDestination[];
}

/** POST /servers/{id}/backups: the backup starts PENDING; the list below and the status line follow it. */
export function BackUpNow({ server, destinations }: BackUpNowProps) {
  const client = useQueryClient();
  const [chosen, setChosen] = useState('');
  const destinationId = chosen || defaultDestinationId(destinations);
  const backup = useMutation({
    mutationFn: () => api.backups.create(server.id, destinations && destinationId ? { destinationId } : {}),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.backups.all }),
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    backup.mutate();
  };
  return (
    <form className="backup-now" onSubmit={submit} noValidate aria-label="Back up now">
      {destinations ? <DestinationSelect destinations={destinations} value={destinationId} onChange={setChosen} error={backup.error} /> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={backup.isPending}>{backup.isPending ? 'Backing up…' : 'Back up now'}</button>
        {backup.isSuccess ? <StartedBackupStatus key={backup.data.id} started={backup.data} /> : null}
      </div>
      <p className="hint">A running server keeps running: it saves its world and pauses saving while its files are read.</p>
      <ProblemAlert error={backup.error} fields={['destinationId']} />
    </form>
  );
}
