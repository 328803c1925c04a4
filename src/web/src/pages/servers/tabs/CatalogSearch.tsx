import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { useTemplates, useTemplateVersions } from '../../../api/reference-data';
import type { CatalogPlugin, CatalogQuery, ServerDetail } from '../../../api/types';
import { DataTable, type Column } from '../../../components/DataTable';
import { SelectField, TextField } from '../../../components/Field';
import { Pager, useCursorPager } from '../../../components/Pager';
import { ProblemAlert } from '../../../components/ProblemAlert';

/** Choices, not free text: the templates' platforms and the server template's versions (with the server's own), or any. */
const choices = (values: (string | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))];

/** The synced catalog, searched with the server's platform and game version by default ('' in a choice: any). */
export function CatalogSearch({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const templates = useTemplates();
  const versions = useTemplateVersions(server.software.template);
  const platform = templates.data?.find((t) => t.id === server.software.template)?.platform ?? '';
  const platforms = choices([platform, ...(templates.data?.map((t) => t.platform) ?? [])]).sort();
  const gameVersions = choices([server.software.version, ...(versions.data?.map((v) => v.version) ?? [])]);
  const [form, setForm] = useState<{ search: string; platform?: string; gameVersion?: string }>({ search: '' });
  const [submitted, setSubmitted] = useState<typeof form>({ search: '' });
  const pager = useCursorPager();
  const query: CatalogQuery = {
    search: submitted.search || undefined,
    platform: (submitted.platform ?? platform) || undefined,
    gameVersion: (submitted.gameVersion ?? server.software.version) || undefined,
    cursor: pager.cursor, limit: 20,
  };
  const catalog = useQuery({ queryKey: queryKeys.catalog(query), queryFn: () => api.catalog.list(query), enabled: templates.isSuccess, placeholderData: keepPreviousData });
  // The same query as the Installed plugins table (one cache entry): a plugin there, a dependency too, is not offered again.
  const installed = useQuery({ queryKey: queryKeys.servers.plugins(server.id), queryFn: () => api.plugins.list(server.id, { limit: 200 }) });
  const installedVersion = new Map(installed.data?.items.map((i) => [i.pluginId, i.version]));
  const install = useMutation({
    mutationFn: (p: CatalogPlugin) => api.plugins.install(server.id, { pluginId: p.id }),
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.servers.plugins(server.id) }),
  });
  const search = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    pager.reset();
    setSubmitted(form);
  };

  const columns: Column<CatalogPlugin>[] = [
    { header: 'Plugin', essential: true, cell: (p) => <><a href={p.url} target="_blank" rel="noreferrer">{p.name}</a><div className="hint">{p.summary}</div></> },
    { header: 'Source', cell: (p) => p.source },
    { header: 'Downloads', cell: (p) => p.downloads.toLocaleString() },
    { header: 'License', cell: (p) => p.license || '—' },
    {
      header: 'Actions', essential: true,
      cell: (p) => {
        const version = installedVersion.get(p.id);
        if (version !== undefined) return <span className="state good">Installed ({version})</span>;
        return (
          <button type="button" onClick={() => install.mutate(p)} disabled={install.isPending || !installed.isSuccess} aria-label={`Install ${p.name}`}>
            {install.isPending && install.variables.id === p.id ? 'Installing…' : 'Install'}
          </button>
        );
      },
    },
  ];

  return (
    <section aria-labelledby="catalog-heading">
      <h2 id="catalog-heading">Catalog</h2>
      {catalog.data?.sample ? (
        <p className="warning" role="note" aria-label="Sample catalog">
          Sample catalog: no plugin source (Modrinth, Hangar) has answered yet, so these are placeholder plugins with made-up download counts, not the real
          projects. The real catalog replaces them at the first sync that reaches a source.
        </p>
      ) : null}
      <form className="filters" role="search" aria-label="Search the catalog" onSubmit={search}>
        <TextField label="Search plugins" type="search" value={form.search} onChange={(e) => setForm({ ...form, search: e.target.value })} />
        <SelectField label="Platform" value={form.platform ?? platform} onChange={(e) => setForm({ ...form, platform: e.target.value })}>
          <option value="">Any platform</option>
          {platforms.map((p) => <option key={p} value={p}>{p}</option>)}
        </SelectField>
        <SelectField label="Game version" value={form.gameVersion ?? server.software.version} onChange={(e) => setForm({ ...form, gameVersion: e.target.value })}>
          <option value="">Any game version</option>
          {gameVersions.map((v) => <option key={v} value={v}>{v}</option>)}
        </SelectField>
        <button type="submit">Search</button>
      </form>
      {install.isSuccess ? <p role="status" className="success">Installed {install.data.name} {install.data.version}; the plugins it requires come with it.</p> : null}
      <ProblemAlert error={install.error} />
      <ProblemAlert error={catalog.error} />
      <DataTable caption="Catalog plugins" columns={columns} rows={catalog.data?.items} rowKey={(p) => p.id} empty="No plugin matches." />
      <Pager pager={pager} nextCursor={catalog.data?.nextCursor} label="Catalog pages" />
    </section>
  );
}
