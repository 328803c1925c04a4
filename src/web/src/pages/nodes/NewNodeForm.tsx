import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { EnrollmentIssued } from '../../api/types';
import { TextField } from '../../components/Field';
import { FormProblem } from '../../components/FormProblem';

const fields = ['name', 'address'];

/** Creates a Node; its one-time enrollment token goes to `onCreated` to be shown once. */
export function NewNodeForm({ onCreated }: { onCreated: (issued: EnrollmentIssued) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const create = useMutation({
    mutationFn: api.nodes.create,
    onSuccess: async (issued) => {
      setName('');
      setAddress('');
      onCreated(issued);
      await client.invalidateQueries({ queryKey: queryKeys.nodes.all });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    create.mutate(address.trim() ? { name: name.trim(), address: address.trim() } : { name: name.trim() });
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="new-node-heading">
      <h2 id="new-node-heading">New Node</h2>
      <TextField label="Name" field="name" error={create.error} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" hint="1 to 64 letters, digits, spaces, dots, dashes or underscores." required />
      <TextField label="Address" field="address" error={create.error} value={address} onChange={(e) => setAddress(e.target.value)} autoComplete="off" spellCheck={false} hint="Optional. Host name or IP address where other Nodes reach this one, without a port; empty uses the address its Agent connects from." />
      <FormProblem error={create.error} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating Node…' : 'Create Node'}</button>
      </div>
    </form>
  );
}
