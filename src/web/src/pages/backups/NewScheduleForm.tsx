import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination, CreateBackupSchedule } from '../../api/types';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';
import { checkSchedule, defaultDestinationId, maxRetain, minRetain, type ScheduleCheck } from './backup-format';
import { DestinationSelect } from './DestinationSelect';

interface NewScheduleFormProps {
  serverId: string;
  /** Global administrators choose one; others get the Controller's default. */
  destinations?: BackupDestination[];
}

const fields = ['cron', 'retain', 'destinationId'];

/** POST /servers/{id}/backup-schedules: a five-field cron expression in UTC and how many of its backups to keep. */
export function NewScheduleForm({ serverId, destinations }: NewScheduleFormProps) {
  const client = useQueryClient();
  const [cron, setCron] = useState('');
  const [retain, setRetain] = useState('7');
  const [chosen, setChosen] = useState('');
  const [local, setLocal] = useState<ScheduleCheck>({});
  const destinationId = chosen || defaultDestinationId(destinations);
  const create = useMutation({
    mutationFn: (body: CreateBackupSchedule) => api.backupSchedules.create(serverId, body),
    onSuccess: () => {
      setCron('');
      void client.invalidateQueries({ queryKey: queryKeys.backupSchedules.all });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const check = checkSchedule(cron, retain);
    setLocal(check);
    if (check.cron || check.retainValue === undefined) return;
    create.mutate({ cron: cron.trim().split(/\s+/).join(' '), retain: check.retainValue, ...(destinations && destinationId ? { destinationId } : {}) });
  };
  return (
    <form className="sub-form" onSubmit={submit} noValidate aria-label="New schedule">
      <h3>New schedule</h3>
      <TextField label="Cron" field="cron" error={create.error} localError={local.cron} value={cron} onChange={(e) => setCron(e.target.value)}
        autoComplete="off" spellCheck={false} placeholder="0 4 * * *" hint="Five fields in UTC: minute, hour, day of month, month, day of week. 0 4 * * * is 04:00 every day." />
      <TextField label="Retain" field="retain" error={create.error} localError={local.retain} inputMode="numeric" value={retain} onChange={(e) => setRetain(e.target.value)}
        hint={`How many of this schedule's backups are kept (${minRetain} to ${maxRetain}); the oldest beyond go after each run. Manual backups are never deleted.`} />
      {destinations ? <DestinationSelect destinations={destinations} value={destinationId} onChange={setChosen} error={create.error} /> : null}
      <ProblemAlert error={create.error} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Adding schedule…' : 'Add schedule'}</button>
        {create.isSuccess ? <span role="status" className="success">Schedule added: next run {formatTime(create.data.nextRunAt)}.</span> : null}
      </div>
    </form>
  );
}
