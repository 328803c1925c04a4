import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { SshKey } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { TextAreaField, TextField } from '../../components/Field';
import { FormProblem } from '../../components/FormProblem';
import { Loading } from '../../components/Loading';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatTime } from '../../format/units';

const fields = ['name', 'publicKey'] as const;

/** Your SSH public keys for signing in to SFTP (docs/sftp.md): listed by fingerprint, added by pasting, deleted after a confirmation. */
export function SshKeysSection() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: queryKeys.sshKeys, queryFn: api.me.sshKeys });
  const refresh = () => void client.invalidateQueries({ queryKey: queryKeys.sshKeys });
  const columns: Column<SshKey>[] = [
    { header: 'Name', essential: true, cell: (k) => k.name },
    { header: 'Fingerprint', essential: true, cell: (k) => <span className="mono">{k.fingerprint}</span> },
    { header: 'Added', cell: (k) => formatTime(k.createdAt) },
    {
      header: 'Actions', essential: true,
      cell: (k) => (
        <ConfirmButton title={`Delete the SSH key ${k.name}?`} confirmLabel="Delete" action={() => api.me.deleteSshKey(k.id)} onDone={refresh}
          description="SFTP refuses this key from now on; sessions it opened stay open until they end."
        >Delete<span className="visually-hidden"> {k.name}</span></ConfirmButton>
      ),
    },
  ];
  return (
    <>
      <h2>SSH keys</h2>
      <p>Sign in to a server's files over SFTP with one of these keys; each server's Files tab shows the address and username.</p>
      <ProblemAlert error={keys.error} />
      {keys.isPending ? <Loading what="your SSH keys" /> : (
        <DataTable caption="Your SSH keys" columns={columns} rows={keys.data?.items} rowKey={(k) => k.id} empty="No SSH keys yet." />
      )}
      <AddSshKey onAdded={refresh} />
    </>
  );
}

function AddSshKey({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const add = useMutation({
    mutationFn: api.me.addSshKey,
    onSuccess: () => {
      setName('');
      setPublicKey('');
      onAdded();
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    add.mutate({ name: name.trim(), publicKey: publicKey.trim() });
  };
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby="add-ssh-key-heading">
      <h3 id="add-ssh-key-heading">Add SSH key</h3>
      <TextField label="Key name" field="name" error={add.error} value={name} onChange={(e) => setName(e.target.value)} hint="Where the key lives, e.g. laptop." />
      <TextAreaField label="Public key" field="publicKey" error={add.error} value={publicKey} onChange={(e) => setPublicKey(e.target.value)} rows={3} spellCheck={false} className="mono"
        hint="One line of your .pub file: ssh-ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of 3072 bits or more." />
      <FormProblem error={add.error} fields={fields} />
      {add.isSuccess ? <p role="status" className="success">Added {add.data.name} ({add.data.fingerprint}).</p> : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending}>Add SSH key</button>
      </div>
    </form>
  );
}
