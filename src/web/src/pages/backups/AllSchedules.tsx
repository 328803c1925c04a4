import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { allPages } from '../../api/reference-data';
import type { BackupDestination, ServerListItem } from '../../api/types';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { ScheduleTable } from './ScheduleTable';

/** GET /backup-schedules: every schedule of the servers whose backups the caller may read. */
export function AllSchedules({ servers, destinations }: { servers: ServerListItem[] | undefined; destinations?: BackupDestination[] }) {
  const schedules = useQuery({ queryKey: queryKeys.backupSchedules.list, queryFn: () => allPages(api.backupSchedules.list) });
  return (
    <section className="card wide" aria-labelledby="all-schedules-heading">
      <h2 id="all-schedules-heading">Schedules</h2>
      <p className="hint">Add a schedule on a server's Backups tab.</p>
      <ProblemAlert error={schedules.error} />
      {schedules.isPending ? <Loading what="schedules" /> : (
        <ScheduleTable caption="Backup schedules" schedules={schedules.data} showServer servers={servers} destinations={destinations} empty="No schedules." />
      )}
    </section>
  );
}
