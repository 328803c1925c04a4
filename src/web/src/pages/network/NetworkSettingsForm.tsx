import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import type { Network } from '../../api/types';
import { TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { parseWholeNumber } from '../../format/units';

const fields = ['name', 'description', 'address', 'port'];

/** Name, description and where players connect; a new port moves the proxy (the API restarts it). */
export function NetworkSettingsForm({ network }: { network: Network }) {
  const client = useQueryClient();
  const [form, setForm] = useState({ name: network.name, description: network.description, address: network.address, port: String(network.port) });
  const [portError, setPortError] = useState<string>();
  const update = useMutation({
    mutationFn: api.network.update,
    onSuccess: (saved) => {
      client.setQueryData(queryKeys.network.record, saved);
      void client.invalidateQueries({ queryKey: queryKeys.servers.all });
    },
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const port = parseWholeNumber(form.port);
    setPortError(port ? undefined : 'Enter a port number from 1 to 65535.');
    if (port) update.mutate({ name: form.name.trim(), description: form.description, address: form.address.trim(), port });
  };
  const err = update.error;
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="network-settings-heading">
      <h2 id="network-settings-heading">Network settings</h2>
      <TextField label="Name" field="name" error={err} value={form.name} onChange={set('name')} required maxLength={64} />
      <TextField label="Description" field="description" error={err} value={form.description} onChange={set('description')} maxLength={500} />
      <TextField label="Address" field="address" error={err} value={form.address} onChange={set('address')} required
        hint="The host name or IP address players type, without a port." />
      <TextField label="Port" field="port" error={err} localError={portError} inputMode="numeric" value={form.port} onChange={set('port')} required
        hint="The proxy listens on it; a running proxy restarts to move." />
      <ProblemAlert error={err} fields={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={update.isPending}>{update.isPending ? 'Saving network…' : 'Save network'}</button>
        {update.isSuccess ? <span role="status" className="success">Saved.</span> : null}
      </div>
    </form>
  );
}
