import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { Schedule, ScheduleRun } from '../../../api/types';
import { DataTable, type Column } from '../../../components/DataTable';
import { Loading } from '../../../components/Loading';
import { Pager, useCursorPager } from '../../../components/Pager';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatScheduleTime } from './cron-preview';
import { reasonWords, resultClass } from './schedule-words';

/** How often the runs are read again while one is RUNNING. */
const livePollMs = 2_000;
const pageSize = 20;

/** The runs' columns, their times in the schedule's zone as its cron is. */
const columnsIn = (timezone: string): Column<ScheduleRun>[] => [
  {
    header: 'Result', essential: true, cell: (r) => (
      <>
        <span className={resultClass(r.result)}>{r.result}</span>
        {r.reason ? <div className="hint">{r.reason}: {reasonWords[r.reason]}</div> : null}
      </>
    ),
  },
  { header: 'Scheduled for', cell: (r) => formatScheduleTime(r.scheduledFor, timezone) },
  { header: 'Started', essential: true, cell: (r) => formatScheduleTime(r.startedAt, timezone, { seconds: true }) },
  { header: 'Finished', cell: (r) => formatScheduleTime(r.finishedAt, timezone, { seconds: true }) },
  {
    header: 'Tasks', essential: true, cell: (r) => (r.tasks.length === 0 ? 'none run' : (
      <ol className="schedule-task-results">
        {r.tasks.map((t, i) => (
          <li key={i}>{t.action}: <span className={resultClass(t.result)}>{t.result}</span>{t.detail ? <span className="why"> — {t.detail}</span> : null}</li>
        ))}
      </ol>
    )),
  },
];

/** A schedule's runs, newest first, read again every 2 s while one is RUNNING. */
export function ScheduleRuns({ schedule }: { schedule: Schedule }) {
  const pager = useCursorPager();
  const runs = useQuery({
    queryKey: queryKeys.schedules.runs(schedule.id, pager.cursor),
    queryFn: () => api.schedules.runs(schedule.id, { limit: pageSize, cursor: pager.cursor }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.items.some((r) => r.result === 'RUNNING') ? livePollMs : false),
  });
  const headingId = `runs-${schedule.id}-heading`;
  return (
    <section aria-labelledby={headingId} className="schedule-runs">
      <h3 id={headingId}>Runs of {schedule.name}</h3>
      <ProblemAlert error={runs.error} />
      {runs.isPending ? <Loading what="runs" /> : (
        <DataTable caption={`Runs of ${schedule.name}, newest first`} columns={columnsIn(schedule.timezone)} rows={runs.data?.items} rowKey={(r) => r.id} empty="No runs yet." />
      )}
      <Pager pager={pager} nextCursor={runs.data?.nextCursor} label={`Pages of runs of ${schedule.name}`} />
    </section>
  );
}
