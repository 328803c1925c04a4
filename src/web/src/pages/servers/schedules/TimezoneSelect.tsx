import { useMemo } from 'react';
import { SelectField } from '../../../components/Field';
import { timezoneChoices } from './cron-preview';

/** The schedule's IANA time zone, from the names the browser knows; its cron is read in it, summer time included. */
export function TimezoneSelect({ value, onChange, error }: { value: string; onChange: (zone: string) => void; error: unknown }) {
  const zones = useMemo(timezoneChoices, []);
  return (
    <SelectField label="Timezone" field="timezone" error={error} value={value} onChange={(e) => onChange(e.target.value)}
      hint="The cron's hours are this zone's: 0 4 * * * in Europe/Berlin runs at 04:00 there, in summer and winter.">
      {zones.map((z) => <option key={z} value={z}>{z}</option>)}
    </SelectField>
  );
}
