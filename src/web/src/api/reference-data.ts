import { useQuery } from '@tanstack/react-query';
import { api } from './client';
import { queryKeys } from './query-keys';
import type { PageQuery } from './types';

/** Reads every page of a list (teams, Nodes, templates are few), for pickers and names in tables. */
export async function allPages<T>(list: (query: PageQuery) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: 200, cursor });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** `fresh` refetches when a form opens, so a team made elsewhere a moment ago is offered. */
export const useAllTeams = (fresh = false) =>
  useQuery({ queryKey: queryKeys.teams.everything, queryFn: () => allPages(api.teams.list), staleTime: 60_000, refetchOnMount: fresh ? 'always' : true });

/** Nodes the caller may read; someone without nodes.read sees only ids. */
export const useAllNodes = (fresh = false) =>
  useQuery({ queryKey: queryKeys.nodes.everything, queryFn: () => allPages(api.nodes.list), staleTime: 30_000, refetchOnMount: fresh ? 'always' : true });

/** Every user, for pickers and names in tables; only global administrators may list them (`enabled` false for others). */
export const useAllUsers = (enabled = true) =>
  useQuery({ queryKey: queryKeys.users.everything, queryFn: () => allPages(api.users.list), enabled });

export const useAllRoles = () => useQuery({ queryKey: queryKeys.roles.everything, queryFn: () => allPages(api.roles.list) });

/** Servers the caller may read, for names and links in the backups tables. */
export const useAllServers = () =>
  useQuery({ queryKey: queryKeys.servers.everything, queryFn: () => allPages(api.servers.list), staleTime: 30_000 });

export const useTemplates = () => useQuery({ queryKey: queryKeys.templates, queryFn: () => allPages(api.templates.list), staleTime: 5 * 60_000 });

/** The template whose versions are a Modrinth project's: its versions are asked for one project at a time. */
export const modpackTemplate = 'modrinth';

/**
 * Every version of a template, newest first; nothing is asked until a template is chosen, and for
 * the modpack template until a project (its slug) is chosen.
 */
export const useTemplateVersions = (templateId: string | undefined, project?: string) => {
  const needsProject = templateId === modpackTemplate;
  return useQuery({
    queryKey: queryKeys.templateVersions(templateId ?? '', needsProject ? project : undefined),
    queryFn: () => allPages((query) => api.templates.versions(templateId ?? '', needsProject ? { ...query, project } : query)),
    enabled: !!templateId && (!needsProject || !!project), staleTime: 5 * 60_000,
  });
};

/** Modrinth's modpacks matching `query` (already debounced by the caller); `enabled` false while the modpack template is not chosen. */
export const useModpackSearch = (query: string, enabled: boolean) =>
  useQuery({ queryKey: queryKeys.modpacks(query), queryFn: () => api.templates.modpacks(query), enabled, staleTime: 60_000, placeholderData: (previous) => previous });

/** `id → name` for a table cell, falling back to a short id while unknown. */
export function nameOf(list: { id: string; name: string }[] | undefined, id: string | undefined): string {
  if (!id) return '—';
  return list?.find((x) => x.id === id)?.name ?? id.slice(0, 8);
}
