import { useMemo } from 'react';
import { TextField } from '../../../components/Field';
import { formatInZone, previewCron } from './cron-preview';

interface CronFieldProps {
  value: string;
  onChange: (value: string) => void;
  timezone: string;
  /** The form's last mutation error, to show a problem about `cron` here. */
  error: unknown;
}

const fieldsHint = 'Five fields: minute, hour, day of month, month, day of week. 0 4 * * * is 04:00 every day.';

/** The cron expression, said in words with its next five runs in the chosen timezone as it is typed. */
export function CronField({ value, onChange, timezone, error }: CronFieldProps) {
  const preview = useMemo(() => previewCron(value, timezone), [value, timezone]);
  const hint = preview ? (
    <div className="cron-preview">
      <p className="cron-words">{preview.words} ({timezone}).</p>
      <p className="cron-next-label">Next five runs:</p>
      <ol aria-label="Next five runs">
        {preview.next.map((d) => <li key={d.toISOString()}><time dateTime={d.toISOString()}>{formatInZone(d, timezone)}</time></li>)}
      </ol>
    </div>
  ) : value.trim() === '' ? fieldsHint : `This does not read as a schedule yet. ${fieldsHint}`;
  return (
    <TextField label="Cron" field="cron" error={error} value={value} onChange={(e) => onChange(e.target.value)}
      autoComplete="off" spellCheck={false} placeholder="0 4 * * *" hint={hint} />
  );
}
