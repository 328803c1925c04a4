import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { BackupDestination, Schedule, UpdateServerSchedule } from '../../../api/types';
import { FormProblem } from '../../../components/FormProblem';
import { defaultDestinationId } from '../../backups/backup-format';
import { draftOfSchedule, scheduleBody, scheduleControlFields } from './schedule-drafts';
import { ScheduleFields } from './ScheduleFields';

interface EditScheduleFormProps {
  schedule: Schedule;
  serverName: string;
  destinations?: BackupDestination[];
  /** Saved (with the schedule as stored now) or cancelled: the form closes. */
  onClose: (saved?: Schedule) => void;
}

/**
 * PATCH /schedules/{id} with every field of the form: the New schedule form's controls, filled
 * with the schedule as it is, and Enabled. Saving makes the caller its last editor, whose rights
 * its runs then act with.
 */
export function EditScheduleForm({ schedule, serverName, destinations, onClose }: EditScheduleFormProps) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(() => draftOfSchedule(schedule));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const fallbackDestination = defaultDestinationId(destinations);
  const save = useMutation({
    mutationFn: (body: UpdateServerSchedule) => api.schedules.update(schedule.id, body),
    onSuccess: (saved) => {
      void client.invalidateQueries({ queryKey: queryKeys.schedules.all });
      onClose(saved);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const { body, problems: found } = scheduleBody(draft, fallbackDestination);
    setProblems(found);
    if (Object.keys(found).length === 0) save.mutate(body);
  };
  const headingId = `edit-schedule-${schedule.id}-heading`;
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>Edit schedule {schedule.name}</h2>
      <p className="hint">Saving makes you its last editor: its runs act with your permissions.</p>
      <ScheduleFields value={draft} onChange={setDraft} serverName={serverName} destinations={destinations} fallbackDestination={fallbackDestination}
        error={save.error} problems={problems} withEnabled />
      <FormProblem error={save.error} fields={scheduleControlFields(draft, destinations !== undefined)} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
        <button type="button" onClick={() => onClose()} disabled={save.isPending}>Cancel</button>
      </div>
    </form>
  );
}
