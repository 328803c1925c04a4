import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { ServerDetail } from '../../../api/types';
import { mayManageNodes, useMe } from '../../../app/session';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { TextField } from '../../../components/Field';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { bytesToMiB, formatBytes, formatCpu, MiB, parseWholeNumber } from '../../../format/units';
import { MigrationSection } from './MigrationSection';
import { NetworkMembership } from './NetworkMembership';
import { SleepSettings } from './SleepSettings';
import { rememberServer } from '../../../api/server-cache';

/** Resources (a running server restarts gracefully to apply them), network membership and sleep (game servers), migration and deleting the server. */
export function SettingsTab({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const me = useMe();
  const [cpu, setCpu] = useState(String(server.resources.cpuMillis));
  const [memory, setMemory] = useState(String(bytesToMiB(server.resources.memoryBytes)));
  const [local, setLocal] = useState<{ cpu?: string; memory?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const update = useMutation({
    mutationFn: (resources: { cpuMillis: number; memoryBytes: number }) => api.servers.update(server.id, { resources }),
    onSuccess: (detail) => rememberServer(client, detail),
  });
  const remove = useMutation({
    mutationFn: () => api.servers.delete(server.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
      void navigate('/servers');
    },
  });
  const cpuMillis = parseWholeNumber(cpu);
  const mib = parseWholeNumber(memory);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setLocal({ cpu: cpuMillis ? undefined : 'Enter a whole number of millicores.', memory: mib ? undefined : 'Enter a whole number of MiB.' });
    if (cpuMillis && mib) update.mutate({ cpuMillis, memoryBytes: mib * MiB });
  };
  const fields = ['resources.cpuMillis', 'resources.memoryBytes'];
  return (
    <div>
      <form className="card" onSubmit={submit} noValidate aria-labelledby="resources-heading">
        <h2 id="resources-heading">Resources</h2>
        <p className="hint">Now {formatCpu(server.resources.cpuMillis)} and {formatBytes(server.resources.memoryBytes)}. A running server restarts gracefully to apply a change.</p>
        <TextField label="CPU (millicores)" field="resources.cpuMillis" error={update.error} localError={local.cpu} inputMode="numeric" value={cpu} onChange={(e) => setCpu(e.target.value)} />
        <TextField label="Memory (MiB)" field="resources.memoryBytes" error={update.error} localError={local.memory} inputMode="numeric" value={memory} onChange={(e) => setMemory(e.target.value)} />
        <ProblemAlert error={update.error} fields={fields} />
        <div className="actions">
          <button type="submit" className="primary" disabled={update.isPending}>{update.isPending ? 'Saving resources…' : 'Save resources'}</button>
          {update.isSuccess ? <span role="status" className="success">Saved: generation {update.data.generation}.</span> : null}
        </div>
      </form>
      {server.kind === 'GAME_SERVER' ? <NetworkMembership server={server} /> : null}
      {/* The proxy serves the network and never sleeps (the API refuses it). */}
      {server.kind === 'GAME_SERVER' ? <SleepSettings server={server} /> : null}
      {mayManageNodes(me.data) ? <MigrationSection server={server} /> : null}
      <section className="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete server</h2>
        <p>The server is stopped and removed from its Node with all its files.</p>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>Delete server</button>
      </section>
      <ConfirmDialog open={confirming} title={`Delete ${server.name}?`} confirmLabel="Delete server" onConfirm={() => remove.mutate()}
        onCancel={() => { setConfirming(false); remove.reset(); }} pending={remove.isPending} error={remove.error}>
        <p>{server.name} and all its files will be deleted from its Node. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
