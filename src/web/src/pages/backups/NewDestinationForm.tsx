import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { BackupDestinationKind } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';

const kinds: BackupDestinationKind[] = ['NODE_DIRECTORY', 'CONTROLLER'];
const fields = ['name', 'kind', 'path'];

/** POST /backup-destinations: a path only for NODE_DIRECTORY, where it is required and absolute. */
export function NewDestinationForm() {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<BackupDestinationKind>('NODE_DIRECTORY');
  const [path, setPath] = useState('');
  const [local, setLocal] = useState<{ name?: string; path?: string }>({});
  const create = useMutation({
    mutationFn: api.backupDestinations.create,
    onSuccess: () => {
      setName('');
      setPath('');
      void client.invalidateQueries({ queryKey: queryKeys.backupDestinations });
    },
  });
  const onDirectory = kind === 'NODE_DIRECTORY';
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const errors = {
      name: name.trim() ? undefined : 'Enter a name.',
      path: !onDirectory || path.trim().startsWith('/') ? undefined : 'Enter an absolute path on the Node, e.g. /srv/backups.',
    };
    setLocal(errors);
    if (errors.name || errors.path) return;
    create.mutate({ name: name.trim(), kind, ...(onDirectory ? { path: path.trim() } : {}) });
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
      <ProblemAlert error={create.error} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Adding destination…' : 'Add destination'}</button>
        {create.isSuccess ? <span role="status" className="success">Added {create.data.name}.</span> : null}
      </div>
    </form>
  );
}
