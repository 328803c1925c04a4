import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Backup } from '../../api/types';
import { backupStatusText, isUnfinished, livePollMs } from './backup-format';

/** The state of the backup Back up now started, read again until it ends so the line never lags the list. */
export function StartedBackupStatus({ started }: { started: Backup }) {
  const backup = useQuery({
    queryKey: queryKeys.backups.one(started.id),
    queryFn: () => api.backups.get(started.id),
    initialData: started,
    refetchInterval: (query) => (query.state.data && isUnfinished(query.state.data) ? livePollMs : false),
  });
  const state = backup.data.state;
  return <span role="status" className={state === 'FAILED' ? 'field-error' : 'success'}>{backupStatusText(backup.data)}</span>;
}
