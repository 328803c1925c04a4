import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination, BackupState, ServerListItem } from '../../api/types';
import { SelectField } from '../../components/Field';
import { backupStates } from './backup-format';
import { BackupList } from './BackupList';

/** GET /backups: every backup the caller may read, newest first, filtered by state and paged with Load more. */
export function AllBackups({ servers, destinations }: { servers: ServerListItem[] | undefined; destinations?: BackupDestination[] }) {
  const [state, setState] = useState<BackupState>();
  const serverName = (id: string) => servers?.find((s) => s.id === id)?.name ?? 'the server';
  return (
    <section className="card wide" aria-labelledby="all-backups-heading">
      <h2 id="all-backups-heading">All backups</h2>
      <div className="filters" role="search" aria-label="Filter backups">
        <SelectField label="State" value={state ?? ''} onChange={(e) => setState((e.target.value || undefined) as BackupState | undefined)}>
          <option value="">Any</option>
          {backupStates.map((s) => <option key={s} value={s}>{s}</option>)}
        </SelectField>
      </div>
      <BackupList key={state ?? ''} caption="All backups" queryKey={queryKeys.backups.list({ state })} fetchPage={(query) => api.backups.list({ ...query, state })}
        serverName={serverName} showServer servers={servers} destinations={destinations} />
    </section>
  );
}
