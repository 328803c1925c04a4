import { useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { ServerDetail } from '../../../api/types';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { BackUpNow } from '../../backups/BackUpNow';
import { BackupList } from '../../backups/BackupList';
import { NewScheduleForm } from '../../backups/NewScheduleForm';
import { ScheduleTable } from '../../backups/ScheduleTable';
import { useDestinations } from '../../backups/use-destinations';
import '../../admin.css';

/** Back up now, the server's backups live while one runs (Restore, Delete), and its schedules. */
export function BackupsTab({ server }: { server: ServerDetail }) {
  const { destinations } = useDestinations();
  const schedules = useQuery({
    queryKey: queryKeys.backupSchedules.ofServer(server.id), queryFn: () => api.backupSchedules.ofServer(server.id, { limit: 200 }),
  });
  const choices = destinations.data;
  return (
    <div>
      <section aria-labelledby="server-backups-heading">
        <h2 id="server-backups-heading">Backups</h2>
        <ProblemAlert error={destinations.error} />
        <BackUpNow server={server} destinations={choices} />
        <BackupList caption={`Backups of ${server.name}`} queryKey={queryKeys.backups.ofServer(server.id)}
          fetchPage={(query) => api.backups.ofServer(server.id, query)} serverName={() => server.name} destinations={choices}
          busy={server.phase === 'RESTORING'} />
      </section>
      <section aria-labelledby="server-schedules-heading">
        <h2 id="server-schedules-heading">Schedules</h2>
        <ProblemAlert error={schedules.error} />
        {schedules.isPending ? <Loading what="schedules" /> : (
          <ScheduleTable caption={`Backup schedules of ${server.name}`} schedules={schedules.data?.items} destinations={choices} empty="No schedules: backups are taken only when asked." />
        )}
        <NewScheduleForm serverId={server.id} destinations={choices} />
      </section>
    </div>
  );
}
