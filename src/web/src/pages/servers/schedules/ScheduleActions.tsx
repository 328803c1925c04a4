import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { Schedule } from '../../../api/types';
import { ConfirmButton } from '../../../components/ConfirmButton';
import { ProblemAlert } from '../../../components/ProblemAlert';

interface ScheduleActionsProps {
  schedule: Schedule;
  runsShown: boolean;
  /** Shows this schedule's runs below the table (or hides them again). */
  onToggleRuns: () => void;
  /** After Run now: its run is shown. */
  onRan: () => void;
  editing: boolean;
  /** Opens the Edit schedule form for this schedule (or closes it again). */
  onToggleEdit: () => void;
}

/** A schedule's row buttons: Run now (once, now), its runs, Edit, Enable or Disable, and Delete (asked first). */
export function ScheduleActions({ schedule, runsShown, onToggleRuns, onRan, editing, onToggleEdit }: ScheduleActionsProps) {
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.schedules.all });
  const run = useMutation({
    mutationFn: () => api.schedules.run(schedule.id),
    onSuccess: () => {
      onRan();
      void refresh();
    },
  });
  const toggle = useMutation({ mutationFn: () => api.schedules.update(schedule.id, { enabled: !schedule.enabled }), onSuccess: () => void refresh() });
  const named = <span className="visually-hidden"> {schedule.name}</span>;
  return (
    <>
      <div className="row-actions">
        <button type="button" onClick={() => run.mutate()} disabled={run.isPending}>{run.isPending ? 'Starting…' : 'Run now'}{named}</button>
        <button type="button" aria-expanded={runsShown} onClick={onToggleRuns}>Runs{named}</button>
        <button type="button" aria-expanded={editing} onClick={onToggleEdit}>Edit{named}</button>
        <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>{schedule.enabled ? 'Disable' : 'Enable'}{named}</button>
        <ConfirmButton title={`Delete the schedule ${schedule.name}?`} confirmLabel="Delete" action={() => api.schedules.delete(schedule.id)} onDone={() => void refresh()}
          description="It runs no more. What its runs did (backups taken, restarts) stays.">
          Delete{named}
        </ConfirmButton>
      </div>
      <ProblemAlert error={run.error ?? toggle.error} />
    </>
  );
}
