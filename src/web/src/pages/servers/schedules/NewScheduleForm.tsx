import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { BackupDestination, CreateServerSchedule, ServerDetail } from '../../../api/types';
import { CheckboxField } from '../../../components/Choices';
import { TextField } from '../../../components/Field';
import { FormProblem } from '../../../components/FormProblem';
import { defaultDestinationId } from '../../backups/backup-format';
import { formatScheduleTime } from './cron-preview';
import { CronField } from './CronField';
import { TaskList } from './TaskList';
import { newTask, taskBodies, taskControlFields, type TaskDraft } from './task-drafts';
import { TimezoneSelect } from './TimezoneSelect';

interface NewScheduleFormProps {
  server: ServerDetail;
  /** Global administrators choose a backup task's destination; others get the Controller's default. */
  destinations?: BackupDestination[];
}

const firstTasks = () => [newTask(0)];

/** POST /servers/{id}/schedules: a name, a cron expression in a timezone and the tasks a run takes in order. */
export function NewScheduleForm({ server, destinations }: NewScheduleFormProps) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('');
  const [timezone, setTimezone] = useState('UTC');
  const [onlyWhenRunning, setOnlyWhenRunning] = useState(false);
  const [drafts, setDrafts] = useState<TaskDraft[]>(firstTasks);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const fallbackDestination = defaultDestinationId(destinations);
  const create = useMutation({
    mutationFn: (body: CreateServerSchedule) => api.schedules.create(server.id, body),
    onSuccess: () => {
      setName('');
      setCron('');
      setDrafts(firstTasks());
      void client.invalidateQueries({ queryKey: queryKeys.schedules.ofServer(server.id) });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const withDestinations = drafts.map((d) => (d.action === 'backup' && d.destinationId === '' && fallbackDestination ? { ...d, destinationId: fallbackDestination } : d));
    const { tasks, problems: found } = taskBodies(withDestinations);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    create.mutate({ name: name.trim(), cron: cron.trim().split(/\s+/).join(' '), timezone, onlyWhenRunning, tasks });
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-schedule-heading">
      <h2 id="new-schedule-heading">New schedule</h2>
      <TextField label="Name" field="name" error={create.error} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" placeholder="nightly-restart"
        hint={`Unique among ${server.name}'s schedules.`} />
      <TimezoneSelect value={timezone} onChange={setTimezone} error={create.error} />
      <CronField value={cron} onChange={setCron} timezone={timezone} error={create.error} />
      <CheckboxField label="Only when running" checked={onlyWhenRunning} onChange={setOnlyWhenRunning} field="onlyWhenRunning" error={create.error}
        hint="A run finds the server stopped: it is skipped (not_running) instead of taking its tasks." />
      <TaskList drafts={drafts} onChange={setDrafts} destinations={destinations} defaultDestinationId={fallbackDestination} error={create.error} problems={problems} />
      <FormProblem error={create.error} fields={['name', 'cron', 'timezone', 'onlyWhenRunning', ...taskControlFields(drafts, destinations !== undefined)]} />
      {create.isSuccess ? <p role="status" className="success">Schedule {create.data.name} created: next run {formatScheduleTime(create.data.nextRunAt, create.data.timezone)} ({create.data.timezone}).</p> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating schedule…' : 'Create schedule'}</button>
      </div>
    </form>
  );
}
