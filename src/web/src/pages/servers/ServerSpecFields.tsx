import { useState } from 'react';
import { useAllNodes, useTemplateVersions, useTemplates } from '../../api/reference-data';
import type { CreateServer, TemplateSummary, TemplateVersion } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { formatBytes, formatCpu, MiB, parseWholeNumber } from '../../format/units';
import { versionLabel } from './software/software-format';
import { orderTemplates, versionsWarning } from './template-choice';

/** The request fields ServerSpecFields shows problems for, to leave out of the form's ProblemAlert. */
export const serverSpecFields = ['software.template', 'software.version', 'resources.cpuMillis', 'resources.memoryBytes', 'nodeId'];

/** What a new server and the network's proxy are both created with. */
export type ServerSpecBody = Pick<CreateServer, 'software' | 'resources' | 'nodeId'>;

/**
 * The software and resources of a new server as typed into ServerSpecFields: a template of
 * `kind` (the first of `orderTemplates` until another is chosen) and its version (the newest until another is
 * chosen), CPU, memory and an optional Node. `body()` checks the numbers when the form is sent: it answers what to send, or undefined
 * and shows why under the field.
 */
export function useServerSpec(kind: TemplateSummary['kind'], initial: { cpu: string; memory: string }) {
  const templates = useTemplates();
  const nodes = useAllNodes(true);
  const choices = orderTemplates(templates.data?.filter((t) => t.kind === kind) ?? []);
  const [form, setForm] = useState({ template: '', version: '', cpu: initial.cpu, memory: initial.memory, nodeId: '' });
  const [local, setLocal] = useState<{ cpu?: string; memory?: string }>({});
  const template = choices.find((t) => t.id === (form.template || choices[0]?.id));
  const versionList = useTemplateVersions(template?.id);
  // Until the template's versions (with their Java need) arrive, the names in its summary are offered.
  const versions: Pick<TemplateVersion, 'version' | 'java'>[] = versionList.data ?? template?.versions.map((v) => ({ version: v })) ?? [];
  const version = form.version || versions[0]?.version || '';
  const cpu = parseWholeNumber(form.cpu);
  const memory = parseWholeNumber(form.memory);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [key]: e.target.value, ...(key === 'template' ? { version: '' } : {}) });
  const body = (): ServerSpecBody | undefined => {
    setLocal({ cpu: cpu ? undefined : 'Enter a whole number of millicores (1000 is one CPU).', memory: memory ? undefined : 'Enter a whole number of MiB.' });
    if (!cpu || !memory || !template) return undefined;
    return { software: { template: template.id, version }, resources: { cpuMillis: cpu, memoryBytes: memory * MiB }, ...(form.nodeId ? { nodeId: form.nodeId } : {}) };
  };
  return { templates, nodes, choices, form, local, template, versions, versionList, version, cpu, memory, set, body };
}

export type ServerSpec = ReturnType<typeof useServerSpec>;

/** Template, Version, CPU, Memory and Node controls, with the API's problem about each under it. */
export function ServerSpecFields({ spec, error, nodeHint }: { spec: ServerSpec; error: unknown; nodeHint: string }) {
  const { choices, form, local, template, versions, version, cpu, memory, set } = spec;
  const warning = versionsWarning(template);
  return (
    <>
      <SelectField label="Template" field="software.template" error={error} value={template?.id ?? ''} onChange={set('template')} hint={template?.description} required>
        {choices.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
      </SelectField>
      <SelectField label="Version" field="software.version" error={error} value={version} onChange={set('version')} required>
        {versions.map((v) => <option key={v.version} value={v.version}>{versionLabel(v)}</option>)}
      </SelectField>
      {warning ? <p className="warning" role="note" aria-label="About these versions">{warning}</p> : null}
      <TextField label="CPU (millicores)" field="resources.cpuMillis" error={error} localError={local.cpu} inputMode="numeric" value={form.cpu} onChange={set('cpu')}
        hint={cpu ? `Reserves ${formatCpu(cpu)}.` : '1000 millicores are one CPU core.'} required />
      <TextField label="Memory (MiB)" field="resources.memoryBytes" error={error} localError={local.memory} inputMode="numeric" value={form.memory} onChange={set('memory')}
        hint={memory ? `Reserves ${formatBytes(memory * MiB)}.` : undefined} required />
      <SelectField label="Node" field="nodeId" error={error} value={form.nodeId} onChange={set('nodeId')} hint={nodeHint}>
        <option value="">Best fit (any Node)</option>
        {spec.nodes.data?.map((n) => <option key={n.id} value={n.id} disabled={!n.acceptsPlacements}>{n.name}{n.acceptsPlacements ? '' : ' (not accepting placements)'}</option>)}
      </SelectField>
    </>
  );
}
