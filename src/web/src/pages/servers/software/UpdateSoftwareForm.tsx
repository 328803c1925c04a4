import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { rememberServer } from '../../../api/server-cache';
import type { ServerDetail, TemplateVersion, UpdateSoftware } from '../../../api/types';
import { SelectField } from '../../../components/Field';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { CheckboxField } from '../../../components/Choices';
import { buildLabel } from './loaders';
import { startedUpdate, versionLabel, type UpdateStarted } from './software-format';

const fields = ['version', 'build', 'allowDowngrade', 'force'];

/** Why the form cannot be sent now, said under its button; undefined when it can. */
function blockedReason(server: ServerDetail, versions: readonly TemplateVersion[]): string | undefined {
  if (server.phase === 'UPDATING') return 'An update is running.';
  if (server.phase !== 'READY') return `The server is ${server.phase}: software is updated only while it is READY.`;
  if (versions.length === 0) return 'The template lists no versions yet.';
  return undefined;
}

/**
 * POST /servers/{id}/software: a target version (the newest by default), optionally one of its
 * builds, and the two overrides the API asks for by name. Who may update is the API's answer:
 * a refusal is shown like any other problem.
 */
export function UpdateSoftwareForm({ server, versions, onStarted }: {
  server: ServerDetail; versions: readonly TemplateVersion[]; onStarted: (started: UpdateStarted) => void;
}) {
  const client = useQueryClient();
  const [form, setForm] = useState({ version: '', build: '', allowDowngrade: false, force: false });
  const target = versions.find((v) => v.version === form.version) ?? versions.at(0);
  const update = useMutation({
    mutationFn: (body: UpdateSoftware) => api.servers.updateSoftware(server.id, body),
    onSuccess: (detail, body) => {
      onStarted(startedUpdate(server, body.version));
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const blocked = blockedReason(server, versions);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!target) return;
    update.mutate({
      version: target.version, ...(form.build ? { build: form.build } : {}),
      ...(form.allowDowngrade ? { allowDowngrade: true } : {}), ...(form.force ? { force: true } : {}),
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Update software">
      <SelectField label="Target version" field="version" error={update.error} value={target?.version ?? ''}
        onChange={(e) => setForm({ ...form, version: e.target.value, build: '' })}>
        {versions.map((v) => <option key={v.version} value={v.version}>{versionLabel(v)}{v.version === server.software.version ? ' (current)' : ''}</option>)}
      </SelectField>
      {target?.builds?.length ? (
        <SelectField label={buildLabel(server.software.template)} field="build" error={update.error} value={form.build} onChange={(e) => setForm({ ...form, build: e.target.value })}>
          <option value="">Newest ({target.latestBuild ?? target.builds[0].id})</option>
          {target.builds.map((b) => <option key={b.id} value={b.id}>{b.id} ({b.channel})</option>)}
        </SelectField>
      ) : null}
      <CheckboxField label="Allow downgrade" field="allowDowngrade" error={update.error} checked={form.allowDowngrade}
        onChange={(on) => setForm({ ...form, allowDowngrade: on })} hint="Worlds saved by a newer version may not open on an older one; a failed start rolls back." />
      <CheckboxField label="Update even with incompatible plugins" field="force" error={update.error} checked={form.force}
        onChange={(on) => setForm({ ...form, force: on })} hint="Installed catalog plugins with no version for the target stay as they are." />
      <div className="actions">
        <button type="submit" className="primary" disabled={!!blocked || update.isPending} aria-describedby={blocked ? `update-blocked-${server.id}` : undefined}>
          {update.isPending ? 'Updating…' : 'Update'}
        </button>
      </div>
      {blocked ? <p id={`update-blocked-${server.id}`} className="hint">{blocked}</p> : null}
      <ProblemAlert error={update.error} fields={fields} />
    </form>
  );
}
