import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestination, UpdateBackupDestination } from '../../api/types';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';

const fields = ['accessKeyId', 'secretAccessKey'];

interface Props {
  destination: BackupDestination;
  /** After the Controller accepted the new key (the destinations query is invalidated already). */
  onDone: (updated: BackupDestination) => void;
  onCancel: () => void;
}

/**
 * PATCH /backup-destinations/{id} for an S3 destination: a new secret, and a new access key id if
 * it changes. The Controller tries the key on the bucket before keeping it, so a refusal names the
 * field to mend and the form stays open with what was typed.
 */
export function RotateKeyForm({ destination, onDone, onCancel }: Props) {
  const client = useQueryClient();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const current = destination.accessKeyId ?? '';
  const [accessKeyId, setAccessKeyId] = useState(current);
  const [secretAccessKey, setSecretAccessKey] = useState('');
  const [local, setLocal] = useState<{ accessKeyId?: string; secretAccessKey?: string }>({});
  // The form opens below the table, away from the button that opened it: moving focus tells a screen reader it is there.
  useEffect(() => heading.current?.focus(), []);
  const rotate = useMutation({
    mutationFn: (body: UpdateBackupDestination) => api.backupDestinations.update(destination.id, body),
    onSuccess: (updated) => {
      void client.invalidateQueries({ queryKey: queryKeys.backupDestinations });
      onDone(updated);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const keyId = accessKeyId.trim();
    const errors = {
      accessKeyId: keyId ? undefined : 'Enter the access key id.',
      secretAccessKey: secretAccessKey ? undefined : 'Enter the secret access key.',
    };
    setLocal(errors);
    if (Object.values(errors).some(Boolean)) return;
    // Left out when unchanged, so the API keeps the id it has rather than being told it again.
    rotate.mutate({ secretAccessKey, ...(keyId !== current ? { accessKeyId: keyId } : {}) });
  };
  const text = { error: rotate.error, autoComplete: 'off', spellCheck: false };
  return (
    <form className="sub-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>Rotate key of {destination.name}</h3>
      <p className="hint">The Controller tries the new key on the bucket before keeping it; backups under way finish with the old one.</p>
      <TextField label="Access key id" field="accessKeyId" {...text} localError={local.accessKeyId} value={accessKeyId}
        onChange={(e) => setAccessKeyId(e.target.value)} hint="Unchanged unless you edit it." />
      <TextField label="Secret access key" field="secretAccessKey" type="password" error={rotate.error} localError={local.secretAccessKey}
        value={secretAccessKey} onChange={(e) => setSecretAccessKey(e.target.value)} autoComplete="new-password" required
        hint="Kept encrypted by the Controller; never shown again." />
      <ProblemAlert error={rotate.error} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={rotate.isPending}>{rotate.isPending ? 'Checking key…' : 'Save key'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
