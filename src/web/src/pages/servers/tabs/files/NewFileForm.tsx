import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../../api/client';
import type { FileItem } from '../../../../api/types';
import { TextField } from '../../../../components/Field';
import { ProblemAlert } from '../../../../components/ProblemAlert';
import { joinPath } from '../file-paths';

interface NewFileFormProps {
  serverId: string;
  dir: string;
  /** The folder's entries as listed: the write API replaces a file, so a name in use is refused here. */
  entries: readonly FileItem[] | undefined;
  onCreated: (path: string) => void;
}

/** Creates an empty file in the open folder, to be filled in the editor. */
export function NewFileForm({ serverId, dir, entries, onCreated }: NewFileFormProps) {
  const [name, setName] = useState('');
  const [taken, setTaken] = useState<string>();
  const create = useMutation({
    mutationFn: (path: string) => api.files.write(serverId, path, new Blob([], { type: 'application/octet-stream' })),
    onSuccess: (_, path) => {
      setName('');
      onCreated(path);
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const wanted = name.trim();
    const inUse = entries?.some((f) => f.name === wanted) ?? false;
    setTaken(inUse ? `${wanted} already exists in this folder.` : undefined);
    if (wanted && !inUse) create.mutate(joinPath(dir, wanted));
  };
  return (
    <form onSubmit={submit} className="inline-form">
      <TextField label="File name" field="path" error={create.error} localError={taken} value={name}
        onChange={(e) => { setName(e.target.value); setTaken(undefined); }} />
      <button type="submit" disabled={create.isPending || !name.trim()}>New file</button>
      <ProblemAlert error={create.error} fields={['path']} />
    </form>
  );
}
