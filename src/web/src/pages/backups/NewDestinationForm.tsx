import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestinationKind, CreateBackupDestination } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { emptyS3, missingS3, S3DestinationFields, s3FieldNames, type S3Values } from './S3DestinationFields';

const kinds: BackupDestinationKind[] = ['NODE_DIRECTORY', 'CONTROLLER', 'S3'];
const fields = ['name', 'kind', 'path', ...s3FieldNames];

/** POST /backup-destinations: a path only for NODE_DIRECTORY, where it is required and absolute; S3 takes its bucket and key. */
export function NewDestinationForm() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<BackupDestinationKind>('NODE_DIRECTORY');
  const [path, setPath] = useState('');
  const [s3, setS3] = useState<S3Values>(emptyS3);
  const [local, setLocal] = useState<{ name?: string; path?: string } & ReturnType<typeof missingS3>>({});
  const create = useMutation({
    mutationFn: api.backupDestinations.create,
    onSuccess: () => {
      setName('');
      setPath('');
      setS3(emptyS3);
      void client.invalidateQueries({ queryKey: queryKeys.backupDestinations });
    },
  });
  const onDirectory = kind === 'NODE_DIRECTORY';
  const onS3 = kind === 'S3';
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const errors = {
      name: name.trim() ? undefined : 'Enter a name.',
      path: !onDirectory || path.trim().startsWith('/') ? undefined : 'Enter an absolute path on the Node, e.g. /srv/backups.',
      ...(onS3 ? missingS3(s3) : {}),
    };
    setLocal(errors);
    if (Object.values(errors).some(Boolean)) return;
    const body: CreateBackupDestination = { name: name.trim(), kind };
    if (onDirectory) body.path = path.trim();
    if (onS3) {
      Object.assign(body, {
        endpoint: s3.endpoint.trim(), region: s3.region.trim(), bucket: s3.bucket.trim(), accessKeyId: s3.accessKeyId.trim(),
        secretAccessKey: s3.secretAccessKey, forcePathStyle: s3.forcePathStyle, ...(s3.prefix.trim() ? { prefix: s3.prefix.trim() } : {}),
      });
    }
    create.mutate(body);
  };
  return (
    <form className="sub-form" onSubmit={submit} noValidate aria-label="New destination">
      <h3>New destination</h3>
      <TextField label="Name" field="name" error={create.error} localError={local.name} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
      <SelectField label="Kind" field="kind" error={create.error} value={kind} onChange={(e) => setKind(e.target.value as BackupDestinationKind)}>
        {kinds.map((k) => <option key={k} value={k}>{k}</option>)}
      </SelectField>
      {onDirectory ? (
        <TextField label="Path" field="path" error={create.error} localError={local.path} value={path} onChange={(e) => setPath(e.target.value)}
          autoComplete="off" spellCheck={false} placeholder="/srv/cairn-backups" hint="An absolute directory, on the Node that takes each backup." />
      ) : null}
      {onS3 ? <S3DestinationFields values={s3} onChange={setS3} error={create.error} local={local} /> : null}
      <ProblemAlert error={create.error} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? (onS3 ? 'Checking access…' : 'Adding destination…') : 'Add destination'}</button>
        {create.isSuccess ? <span role="status" className="success">Added {create.data.name}.</span> : null}
      </div>
    </form>
  );
}
