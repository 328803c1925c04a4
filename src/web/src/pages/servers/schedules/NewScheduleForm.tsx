import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { BackupDestination, CreateServerSchedule, ServerDetail } from '../../../api/types';
import { FormProblem } from '../../../components/FormProblem';
import { defaultDestinationId } from '../../backups/backup-format';
import { formatScheduleTime } from './cron-preview';
import { emptySchedule, scheduleBody, scheduleControlFields } from './schedule-drafts';
import { ScheduleFields } from './ScheduleFields';

interface NewScheduleFormProps {
  server: ServerDetail;
  /** Global administrators choose a backup task's destination; others get the Controller's default. */
  destinations?: BackupDestination[];
}

/** POST /servers/{id}/schedules: a name, a cron expression in a timezone and the tasks a run takes in order. */
export function NewScheduleForm({ server, destinations }: NewScheduleFormProps) {
  const client = useQueryClient();
  const [draft, setDraft] = useState(emptySchedule);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const fallbackDestination = defaultDestinationId(destinations);
  const create = useMutation({
    mutationFn: (body: CreateServerSchedule) => api.schedules.create(server.id, body),
    onSuccess: () => {
      // The timezone and the switches stay as chosen for the next schedule.
      setDraft((d) => ({ ...emptySchedule(), timezone: d.timezone, onlyWhenRunning: d.onlyWhenRunning }));
      void client.invalidateQueries({ queryKey: queryKeys.schedules.ofServer(server.id) });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const { body, problems: found } = scheduleBody(draft, fallbackDestination);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    const { enabled: _enabled, ...created } = body;
    create.mutate(created);
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-schedule-heading">
      <h2 id="new-schedule-heading">New schedule</h2>
      <ScheduleFields value={draft} onChange={setDraft} serverName={server.name} destinations={destinations} fallbackDestination={fallbackDestination} error={create.error} problems={problems} />
      <FormProblem error={create.error} fields={scheduleControlFields(draft, destinations !== undefined)} />
      {create.isSuccess ? <p role="status" className="success">Schedule {create.data.name} created: next run {formatScheduleTime(create.data.nextRunAt, create.data.timezone)} ({create.data.timezone}).</p> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating schedule…' : 'Create schedule'}</button>
      </div>
    </form>
  );
}
