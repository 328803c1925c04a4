import type { ChangeEvent } from 'react';
import type { BackupDestination } from '../../api/types';
import { SelectField } from '../../components/Field';
import { describeDestination } from './backup-format';

interface DestinationSelectProps {
  destinations: BackupDestination[];
  value: string;
  onChange: (id: string) => void;
  /** The form's last mutation error, to show a problem about `destinationId` here. */
  error?: unknown;
}

/** The `Destination` select of the backup and schedule forms, saying where the chosen one keeps its backups. */
export function DestinationSelect({ destinations, value, onChange, error }: DestinationSelectProps) {
  const chosen = destinations.find((d) => d.id === value);
  return (
    <SelectField label="Destination" field="destinationId" error={error} value={value}
      onChange={(e: ChangeEvent<HTMLSelectElement>) => onChange(e.target.value)} hint={chosen ? describeDestination(chosen) : undefined}>
      {destinations.map((d) => <option key={d.id} value={d.id}>{d.name}</option>)}
    </SelectField>
  );
}
