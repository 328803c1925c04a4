import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { ServerDetail } from '../../api/types';
import { livePollMs, restoreStatusText } from './backup-format';

/**
 * The line about a restore, from the server's live detail (the one its page shows), not from the
 * restore's answer: it moves from RESTORING to the outcome as the header does. Read again while
 * restoring, for the Backups page, where no watch stream keeps the detail fresh.
 */
export function RestoreStatus({ restored }: { restored: ServerDetail }) {
  const server = useQuery({
    queryKey: queryKeys.servers.detail(restored.id),
    queryFn: () => api.servers.get(restored.id),
    initialData: restored,
    refetchInterval: (query) => (query.state.data?.phase === 'RESTORING' ? livePollMs : false),
  });
  const failed = server.data.phase !== 'RESTORING' && server.data.conditions.some((c) => c.reason === 'RESTORE_FAILED');
  return <p role="status" className={failed ? 'field-error' : 'success'}>{restoreStatusText(server.data)}</p>;
}
