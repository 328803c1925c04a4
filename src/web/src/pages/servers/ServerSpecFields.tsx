import { useState } from 'react';
import { modpackTemplate, useAllNodes, useTemplateVersions, useTemplates } from '../../api/reference-data';
import type { CreateServer, TemplateSummary, TemplateVersion } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { formatBytes, formatCpu, MiB, parseWholeNumber } from '../../format/units';
import { buildLabel } from './software/loaders';
import { ModpackPicker } from './software/ModpackPicker';
import { versionLabel } from './software/software-format';
import { orderTemplates, versionsWarning } from './template-choice';

/** The request fields ServerSpecFields shows problems for, to leave out of the form's ProblemAlert. */
export const serverSpecFields = ['software.template', 'software.version', 'software.build', 'resources.cpuMillis', 'resources.memoryBytes', 'nodeId'];

/** What a new server and the network's proxy are both created with. */
export type ServerSpecBody = Pick<CreateServer, 'software' | 'resources' | 'nodeId'>;

/**
 * The software and resources of a new server as typed into ServerSpecFields: a template of
 * `kind` (the first of `orderTemplates` until another is chosen) and its version (the newest until another is
 * chosen), CPU, memory and an optional Node. A version with builds (PaperMC's, a mod loader's) takes one, its
 * `latestBuild` until another is chosen; the modpack template (`modrinth`) takes a pack found by a search, then one
 * of the pack's versions. `body()` checks the numbers when the form is sent: it answers what to send, or undefined
 * and shows why under the field.
 */
export function useServerSpec(kind: TemplateSummary['kind'], initial: { cpu: string; memory: string }) {
  const templates = useTemplates();
  const nodes = useAllNodes(true);
  const choices = orderTemplates(templates.data?.filter((t) => t.kind === kind) ?? []);
  const [form, setForm] = useState({ template: '', version: '', build: '', pack: '', cpu: initial.cpu, memory: initial.memory, nodeId: '' });
  const [local, setLocal] = useState<{ cpu?: string; memory?: string; pack?: string }>({});
  const template = choices.find((t) => t.id === (form.template || choices[0]?.id));
  const modpack = template?.id === modpackTemplate;
  const versionList = useTemplateVersions(template?.id, form.pack);
  // Until the template's versions (with their Java need) arrive, the names in its summary are offered; a pack's come only from its list.
  const versions: TemplateVersion[] = versionList.data ?? (modpack ? [] : template?.versions.map((v) => ({ version: v })) ?? []);
  const version = form.version || versions[0]?.version || '';
  const builds = versions.find((v) => v.version === version)?.builds ?? [];
  const build = form.build || versions.find((v) => v.version === version)?.latestBuild || builds[0]?.id || '';
  const cpu = parseWholeNumber(form.cpu);
  const memory = parseWholeNumber(form.memory);
  // A new template or pack starts from its newest version, a new version from its newest build.
  const resets: Partial<Record<keyof typeof form, Partial<typeof form>>> = { template: { version: '', build: '', pack: '' }, pack: { version: '', build: '' }, version: { build: '' } };
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value, ...resets[key] });
  const body = (): ServerSpecBody | undefined => {
    const packMissing = modpack && !version;
    setLocal({
      cpu: cpu ? undefined : 'Enter a whole number of millicores (1000 is one CPU).', memory: memory ? undefined : 'Enter a whole number of MiB.',
      pack: packMissing ? 'Choose a modpack, then one of its versions.' : undefined,
    });
    if (!cpu || !memory || !template || packMissing) return undefined;
    return {
      software: { template: template.id, version, ...(builds.length && build ? { build } : {}) },
      resources: { cpuMillis: cpu, memoryBytes: memory * MiB }, ...(form.nodeId ? { nodeId: form.nodeId } : {}),
    };
  };
  return { templates, nodes, choices, form, local, template, modpack, versions, versionList, version, builds, build, cpu, memory, set, body };
}

export type ServerSpec = ReturnType<typeof useServerSpec>;

/** Template, Version, CPU, Memory and Node controls, with the API's problem about each under it. */
export function ServerSpecFields({ spec, error, nodeHint }: { spec: ServerSpec; error: unknown; nodeHint: string }) {
  const { choices, form, local, template, modpack, versions, version, builds, build, cpu, memory, set } = spec;
  const warning = modpack ? undefined : versionsWarning(template);
  return (
    <>
      <SelectField label="Template" field="software.template" error={error} value={template?.id ?? ''} onChange={set('template')} hint={template?.description} required>
        {choices.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
      </SelectField>
      {modpack ? <ModpackPicker chosen={form.pack} onChoose={(slug) => set('pack')({ target: { value: slug } })} localError={form.pack ? undefined : local.pack} /> : null}
      {!modpack || form.pack ? (
        <SelectField label={modpack ? 'Pack version' : 'Version'} field="software.version" error={error} localError={modpack && !version ? local.pack : undefined} value={version} onChange={set('version')} required
          hint={modpack ? `Versions of ${form.pack}, newest first; each fixes its game version and loader.` : undefined}>
          {versions.map((v) => <option key={v.version} value={v.version}>{versionLabel(v)}</option>)}
        </SelectField>
      ) : null}
      {builds.length ? (
        <SelectField label={buildLabel(template?.id)} field="software.build" error={error} value={build} onChange={set('build')}>
          {builds.map((b) => <option key={b.id} value={b.id}>{b.id} ({b.channel}){b.id === versions.find((v) => v.version === version)?.latestBuild ? ', newest' : ''}</option>)}
        </SelectField>
      ) : null}
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
