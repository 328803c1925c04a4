import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllNodes, useTemplates } from '../../api/reference-data';
import { SelectField, TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCpu, MiB, parseWholeNumber } from '../../format/units';
import { rememberServer } from '../../api/server-cache';

const fields = ['software.template', 'software.version', 'resources.cpuMillis', 'resources.memoryBytes', 'nodeId'];

/** Creates the network's one proxy from a PROXY template; the API places it where the network's port is free. */
export function NewProxyForm() {
  const client = useQueryClient();
  const templates = useTemplates();
  const nodes = useAllNodes(true);
  const proxyTemplates = templates.data?.filter((t) => t.kind === 'PROXY') ?? [];
  const [form, setForm] = useState({ template: '', version: '', cpu: '500', memory: '512', nodeId: '' });
  const [local, setLocal] = useState<{ cpu?: string; memory?: string }>({});
  const template = proxyTemplates.find((t) => t.id === (form.template || proxyTemplates[0]?.id));
  const version = form.version || template?.versions[0] || '';
  const create = useMutation({
    mutationFn: api.network.createProxy,
    onSuccess: (proxy) => {
      rememberServer(client, proxy);
      void client.invalidateQueries({ queryKey: queryKeys.network.all });
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [key]: e.target.value, ...(key === 'template' ? { version: '' } : {}) });
  const cpu = parseWholeNumber(form.cpu);
  const memory = parseWholeNumber(form.memory);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    setLocal({ cpu: cpu ? undefined : 'Enter a whole number of millicores (1000 is one CPU).', memory: memory ? undefined : 'Enter a whole number of MiB.' });
    if (!cpu || !memory || !template) return;
    create.mutate({
      software: { template: template.id, version }, resources: { cpuMillis: cpu, memoryBytes: memory * MiB },
      ...(form.nodeId ? { nodeId: form.nodeId } : {}),
    });
  };
  const err = create.error;
  return (
    <form onSubmit={submit} noValidate aria-label="New proxy">
      <p>The network has no proxy yet: players cannot connect until one runs.</p>
      <ProblemAlert error={templates.error} />
      <SelectField label="Template" field="software.template" error={err} value={template?.id ?? ''} onChange={set('template')} required>
        {proxyTemplates.map((t) => <option key={t.id} value={t.id}>{t.id} ({t.platform})</option>)}
      </SelectField>
      <SelectField label="Version" field="software.version" error={err} value={version} onChange={set('version')} required>
        {template?.versions.map((v) => <option key={v} value={v}>{v}</option>)}
      </SelectField>
      <TextField label="CPU (millicores)" field="resources.cpuMillis" error={err} localError={local.cpu} inputMode="numeric" value={form.cpu} onChange={set('cpu')}
        hint={cpu ? `Reserves ${formatCpu(cpu)}.` : '1000 millicores are one CPU core.'} required />
      <TextField label="Memory (MiB)" field="resources.memoryBytes" error={err} localError={local.memory} inputMode="numeric" value={form.memory} onChange={set('memory')}
        hint={memory ? `Reserves ${formatBytes(memory * MiB)}.` : undefined} required />
      <SelectField label="Node" field="nodeId" error={err} value={form.nodeId} onChange={set('nodeId')}
        hint="Optional: without one the best-fitting Node whose host has the network's port free is chosen.">
        <option value="">Best fit (any Node)</option>
        {nodes.data?.map((n) => <option key={n.id} value={n.id} disabled={!n.acceptsPlacements}>{n.name}{n.acceptsPlacements ? '' : ' (not accepting placements)'}</option>)}
      </SelectField>
      <ProblemAlert error={err} fields={fields} />
      <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating proxy…' : 'Create proxy'}</button>
    </form>
  );
}
