import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import type { PluginInstallation, ServerDetail } from '../../../api/types';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { DataTable, type Column } from '../../../components/DataTable';
import { Loading } from '../../../components/Loading';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { formatTime } from '../../../format/units';

function Status({ p }: { p: PluginInstallation }) {
  return (
    <>
      {p.denied ? <div className="state bad">Denied: {p.denied.reason}{p.denied.link ? <> (<a href={p.denied.link} rel="noreferrer" target="_blank">why</a>)</> : null}</div> : null}
      {p.updateAvailable ? <div className="state busy">Update available: {p.updateAvailable.version}</div> : null}
      {p.dependency ? <div className="hint">Required by {p.requiredBy.join(', ')}</div> : null}
      {!p.verified ? <div className="hint">Unverified upload</div> : !p.compatibilityConfirmed ? <div className="hint">Compatibility not confirmed</div> : null}
      {!p.denied && !p.updateAvailable && !p.dependency && p.verified && p.compatibilityConfirmed ? <span className="state good">OK</span> : null}
    </>
  );
}

export function InstalledPlugins({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const key = queryKeys.servers.plugins(server.id);
  const plugins = useQuery({ queryKey: key, queryFn: () => api.plugins.list(server.id, { limit: 200 }) });
  const [removing, setRemoving] = useState<PluginInstallation>();
  const refresh = () => void client.invalidateQueries({ queryKey: key });
  const update = useMutation({ mutationFn: (p: PluginInstallation) => api.plugins.update(server.id, p.id), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: (p: PluginInstallation) => api.plugins.remove(server.id, p.id),
    onSuccess: () => {
      setRemoving(undefined);
      refresh();
    },
  });
  const upload = useMutation({ mutationFn: (jar: File) => api.plugins.upload(server.id, jar), onSuccess: refresh });

  const columns: Column<PluginInstallation>[] = [
    { header: 'Plugin', essential: true, cell: (p) => <><strong>{p.name}</strong> <span className="hint mono">{p.pluginId}</span></> },
    { header: 'Version', essential: true, cell: (p) => p.version },
    { header: 'Source', cell: (p) => p.source },
    { header: 'Status', cell: (p) => <Status p={p} /> },
    { header: 'Installed', cell: (p) => formatTime(p.installedAt) },
    {
      header: 'Actions', essential: true,
      cell: (p) => (
        <div className="actions tight">
          {p.updateAvailable ? (
            <button type="button" onClick={() => update.mutate(p)} disabled={update.isPending} aria-label={`Update ${p.name} to ${p.updateAvailable.version}`}>
              {update.isPending && update.variables.id === p.id ? 'Updating…' : 'Update'}
            </button>
          ) : null}
          <button type="button" className="danger-outline" onClick={() => setRemoving(p)} aria-label={`Remove ${p.name}`}>Remove</button>
        </div>
      ),
    },
  ];

  return (
    <section aria-labelledby="installed-heading">
      <h2 id="installed-heading">Installed plugins</h2>
      <div className="toolbar">
        <label className="button">{upload.isPending ? 'Uploading jar…' : 'Upload a jar'}
          <input type="file" accept=".jar,application/java-archive" className="visually-hidden" disabled={upload.isPending}
            onChange={(e) => { const jar = e.target.files?.[0]; e.target.value = ''; if (jar) upload.mutate(jar); }} />
        </label>
        {upload.isSuccess ? <span role="status" className="success">Uploaded {upload.data.name} {upload.data.version}.</span> : null}
      </div>
      <ProblemAlert error={upload.error} />
      <ProblemAlert error={update.error} />
      <ProblemAlert error={plugins.error} />
      {plugins.isPending ? <Loading what="plugins" /> : (
        <DataTable caption="Installed plugins" columns={columns} rows={plugins.data?.items} rowKey={(p) => p.id} empty="No plugins installed." />
      )}
      <ConfirmDialog open={removing !== undefined} title={`Remove ${removing?.name ?? ''}?`} confirmLabel="Remove"
        onConfirm={() => removing && remove.mutate(removing)} onCancel={() => { setRemoving(undefined); remove.reset(); }} pending={remove.isPending} error={remove.error}>
        <p>The plugin's jar is removed at the next start, with the dependencies nothing else needs. Its configuration folder stays.</p>
      </ConfirmDialog>
    </section>
  );
}
