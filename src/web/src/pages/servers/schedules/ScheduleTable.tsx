import type { Schedule } from '../../../api/types';
import { DataTable, type Column } from '../../../components/DataTable';
import { formatScheduleTime } from './cron-preview';
import { ScheduleActions } from './ScheduleActions';
import { describeTask, resultClass } from './schedule-words';

interface ScheduleTableProps {
  caption: string;
  schedules: Schedule[] | undefined;
  /** The schedule whose runs are shown, if any. */
  shownRuns?: string;
  onShowRuns: (id: string | undefined) => void;
  /** The schedule in the Edit form, if any. */
  editing?: string;
  onEdit: (id: string | undefined) => void;
}

/** A server's schedules: when each runs next, how its last run ended, and its buttons. */
export function ScheduleTable({ caption, schedules, shownRuns, onShowRuns, editing, onEdit }: ScheduleTableProps) {
  const columns: Column<Schedule>[] = [
    { header: 'Name', essential: true, cell: (s) => s.name },
    { header: 'Cron', essential: true, cell: (s) => <><code className="nowrap">{s.cron}</code> <span className="nowrap">{s.timezone}</span></> },
    { header: 'Tasks', cell: (s) => <ol className="schedule-task-summary">{s.tasks.map((t, i) => <li key={i}>{describeTask(t)}</li>)}</ol> },
    { header: 'Next run', essential: true, cell: (s) => (s.enabled ? <span className="nowrap">{formatScheduleTime(s.nextRunAt, s.timezone)}</span> : 'disabled') },
    {
      header: 'Last result', essential: true, cell: (s) => (s.lastRun
        ? <><span className={resultClass(s.lastRun.result)}>{s.lastRun.result}</span> <span className="nowrap">{formatScheduleTime(s.lastRun.startedAt, s.timezone)}</span></>
        : 'not run yet'),
    },
    { header: 'Enabled', cell: (s) => (s.enabled ? 'yes' : 'no') },
    {
      header: 'Actions', essential: true, cell: (s) => (
        <ScheduleActions schedule={s} runsShown={shownRuns === s.id} onToggleRuns={() => onShowRuns(shownRuns === s.id ? undefined : s.id)} onRan={() => onShowRuns(s.id)}
          editing={editing === s.id} onToggleEdit={() => onEdit(editing === s.id ? undefined : s.id)} />
      ),
    },
  ];
  return <DataTable caption={caption} columns={columns} rows={schedules} rowKey={(s) => s.id} empty="No schedules: nothing runs on a clock." />;
}
