import type { BackupDestination } from '../../../api/types';
import { CheckboxField } from '../../../components/Choices';
import { TextField } from '../../../components/Field';
import { CronField } from './CronField';
import type { ScheduleDraft } from './schedule-drafts';
import { TaskList } from './TaskList';
import { TimezoneSelect } from './TimezoneSelect';

interface ScheduleFieldsProps {
  value: ScheduleDraft;
  onChange: (value: ScheduleDraft) => void;
  serverName: string;
  /** Global administrators choose a backup task's destination; others get the Controller's default. */
  destinations?: BackupDestination[];
  fallbackDestination: string;
  /** The form's last mutation error: each control shows the API's problem about its field. */
  error: unknown;
  /** What the form found before sending, by request field. */
  problems: Record<string, string>;
  /** The Edit form has Enabled; a new schedule is enabled (Disable is a button of its row). */
  withEnabled?: boolean;
}

/** The controls of the New and the Edit schedule form: name, timezone, cron in words with its next runs, the switches and the tasks. */
export function ScheduleFields({ value, onChange, serverName, destinations, fallbackDestination, error, problems, withEnabled = false }: ScheduleFieldsProps) {
  const set = <K extends keyof ScheduleDraft>(key: K, v: ScheduleDraft[K]) => onChange({ ...value, [key]: v });
  return (
    <>
      <TextField label="Name" field="name" error={error} value={value.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" placeholder="nightly-restart"
        hint={`Unique among ${serverName}'s schedules.`} />
      <TimezoneSelect value={value.timezone} onChange={(tz) => set('timezone', tz)} error={error} />
      <CronField value={value.cron} onChange={(cron) => set('cron', cron)} timezone={value.timezone} error={error} />
      {withEnabled ? (
        <CheckboxField label="Enabled" checked={value.enabled} onChange={(on) => set('enabled', on)} field="enabled" error={error}
          hint="A disabled schedule keeps its tasks and runs only when you press Run now." />
      ) : null}
      <CheckboxField label="Only when running" checked={value.onlyWhenRunning} onChange={(on) => set('onlyWhenRunning', on)} field="onlyWhenRunning" error={error}
        hint="A run finds the server stopped: it is skipped (not_running) instead of taking its tasks." />
      <TaskList drafts={value.tasks} onChange={(tasks) => set('tasks', tasks)} destinations={destinations} defaultDestinationId={fallbackDestination} error={error} problems={problems} />
    </>
  );
}
