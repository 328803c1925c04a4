import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllNodes, useAllTeams, useTemplates } from '../../api/reference-data';
import { SelectField, TextField } from '../../components/Field';
import { ProblemAlert } from '../../components/ProblemAlert';
import { formatBytes, formatCpu, MiB, parseWholeNumber } from '../../format/units';
import { rememberServer } from '../../api/server-cache';

const fields = ['name', 'teamId', 'software.template', 'software.version', 'resources.cpuMillis', 'resources.memoryBytes', 'nodeId'];

/** Creates a game server; the proxy is made from the network page. */
export function NewServerPage() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const teams = useAllTeams(true);
  const templates = useTemplates();
  const nodes = useAllNodes(true);
  const gameTemplates = templates.data?.filter((t) => t.kind === 'GAME_SERVER') ?? [];
  const [form, setForm] = useState({ name: '', teamId: '', template: '', version: '', cpu: '1000', memory: '1024', nodeId: '' });
  const [local, setLocal] = useState<{ cpu?: string; memory?: string }>({});
  const template = gameTemplates.find((t) => t.id === (form.template || gameTemplates[0]?.id));
  const teamId = form.teamId || teams.data?.[0]?.id || '';
  const version = form.version || template?.versions[0] || '';
  const create = useMutation({
    mutationFn: api.servers.create,
    onSuccess: (server) => {
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
      rememberServer(client, server);
      void navigate(`/servers/${server.id}`);
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
      name: form.name.trim(), teamId, software: { template: template.id, version },
      resources: { cpuMillis: cpu, memoryBytes: memory * MiB }, ...(form.nodeId ? { nodeId: form.nodeId } : {}),
    });
  };
  const err = create.error;
  return (
    <section>
      <h1>New server</h1>
      <ProblemAlert error={teams.error ?? templates.error} />
      <form className="card" onSubmit={submit} noValidate>
        <TextField label="Name" field="name" error={err} value={form.name} onChange={set('name')} required maxLength={64} />
        <SelectField label="Team" field="teamId" error={err} value={teamId} onChange={set('teamId')} required>
          {teams.data?.length === 0 ? <option value="">No team: a global administrator creates teams</option> : null}
          {teams.data?.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </SelectField>
        <SelectField label="Template" field="software.template" error={err} value={template?.id ?? ''} onChange={set('template')} required>
          {gameTemplates.map((t) => <option key={t.id} value={t.id}>{t.id} ({t.platform})</option>)}
        </SelectField>
        <SelectField label="Version" field="software.version" error={err} value={version} onChange={set('version')} required>
          {template?.versions.map((v) => <option key={v} value={v}>{v}</option>)}
        </SelectField>
        <TextField label="CPU (millicores)" field="resources.cpuMillis" error={err} localError={local.cpu} inputMode="numeric" value={form.cpu} onChange={set('cpu')}
          hint={cpu ? `Reserves ${formatCpu(cpu)}.` : '1000 millicores are one CPU core.'} required />
        <TextField label="Memory (MiB)" field="resources.memoryBytes" error={err} localError={local.memory} inputMode="numeric" value={form.memory} onChange={set('memory')}
          hint={memory ? `Reserves ${formatBytes(memory * MiB)}.` : undefined} required />
        <SelectField label="Node" field="nodeId" error={err} value={form.nodeId} onChange={set('nodeId')} hint="Optional: without one the best-fitting Node that accepts placements is chosen.">
          <option value="">Best fit (any Node)</option>
          {nodes.data?.map((n) => <option key={n.id} value={n.id} disabled={!n.acceptsPlacements}>{n.name}{n.acceptsPlacements ? '' : ' (not accepting placements)'}</option>)}
        </SelectField>
        <ProblemAlert error={err} fields={fields} />
        <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating server…' : 'Create server'}</button>
      </form>
    </section>
  );
}
