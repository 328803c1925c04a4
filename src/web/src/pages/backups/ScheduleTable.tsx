import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination, BackupSchedule, ServerListItem } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { formatTime } from '../../format/units';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ServerLink } from './ServerLink';

interface ScheduleTableProps {
  caption: string;
  schedules: BackupSchedule[] | undefined;
  /** A Server column links each schedule's server (the Backups page); names come from `servers`. */
  showServer?: boolean;
  servers?: ServerListItem[];
  destinations?: BackupDestination[];
  empty: string;
}

/** Schedules with when they run next and last; Delete asks first. Backups they took stay. */
export function ScheduleTable({ caption, schedules, showServer, servers, destinations, empty }: ScheduleTableProps) {
  const client = useQueryClient();
  const columns: Column<BackupSchedule>[] = [
    ...(showServer ? [{ header: 'Server', essential: true, cell: (s: BackupSchedule) => <ServerLink id={s.serverId} servers={servers} /> }] : []),
    { header: 'Cron', essential: true, cell: (s) => <code className="nowrap">{s.cron}</code> },
    { header: 'Destination', cell: (s) => destinations?.find((d) => d.id === s.destinationId)?.name ?? s.destinationId.slice(0, 8) },
    { header: 'Retain', cell: (s) => s.retain },
    { header: 'Next run', essential: true, cell: (s) => formatTime(s.nextRunAt) },
    { header: 'Last run', cell: (s) => formatTime(s.lastRunAt) },
    {
      header: 'Actions', essential: true, cell: (s) => (
        <ConfirmButton title="Delete this schedule?" confirmLabel="Delete" action={() => api.backupSchedules.delete(s.id)}
          onDone={() => void client.invalidateQueries({ queryKey: queryKeys.backupSchedules.all })}
          description={`No more backups are taken at ${s.cron} (UTC). The backups it took are kept.`}>
          Delete<span className="visually-hidden"> the schedule {s.cron}</span>
        </ConfirmButton>
      ),
    },
  ];
  return <DataTable caption={caption} columns={columns} rows={schedules} rowKey={(s) => s.id} empty={empty} />;
}
