import type { ChangeEvent } from 'react';
import type { BackupDestination } from '../../api/types';
import { SelectField } from '../../components/Field';
import { describeDestination } from './backup-format';

interface DestinationSelectProps {
  destinations: BackupDestination[];
  value: string;
  onChange: (id: string) => void;
  /** The form's last mutation error, to show a problem about `field` here. */
  error?: unknown;
  /** The request field it fills: `destinationId` unless it is part of a list (`tasks[2].destinationId`). */
  field?: string;
}

/** The `Destination` select of the backup and schedule forms, saying where the chosen one keeps its backups. */
export function DestinationSelect({ destinations, value, onChange, error, field = 'destinationId' }: DestinationSelectProps) {
  const chosen = destinations.find((d) => d.id === value);
  return (
    <SelectField label="Destination" field={field} error={error} value={value}
      onChange={(e: ChangeEvent<HTMLSelectElement>) => onChange(e.target.value)} hint={chosen ? describeDestination(chosen) : undefined}>
      {destinations.map((d) => <option key={d.id} value={d.id}>{d.name}</option>)}
    </SelectField>
  );
}
