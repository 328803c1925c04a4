import { useMemo } from 'react';
import { Link } from 'react-router';
import { useAllNodes, useAllServers, useAllTeams } from '../../api/reference-data';
import type { AuditEvent, User } from '../../api/types';

type Names = Map<string, string>;

const byId = (items: { id: string; name: string }[] | undefined): Names => new Map((items ?? []).map((x) => [x.id, x.name]));

/**
 * Names for the ids of audit targets the UI can read (servers, teams, Nodes, users): an event
 * names its target by id only. What the caller cannot read, or is gone, stays an id.
 */
export function useTargetNames(users: User[] | undefined): (kind: string, id: string) => string | undefined {
  const servers = useAllServers();
  const teams = useAllTeams();
  const nodes = useAllNodes();
  const names = useMemo(() => new Map<string, Names>([
    ['server', byId(servers.data)], ['team', byId(teams.data)], ['node', byId(nodes.data)],
    ['user', new Map((users ?? []).map((u) => [u.id, u.username]))],
  ]), [servers.data, teams.data, nodes.data, users]);
  return (kind, id) => names.get(kind)?.get(id);
}

/** Where a target has a page of its own. */
function targetLink(kind: string, id: string): string | undefined {
  const encoded = encodeURIComponent(id);
  if (kind === 'node') return `/nodes?node=${encoded}`;
  if (kind === 'server') return `/servers/${encoded}`;
  if (kind === 'team') return `/teams?team=${encoded}`;
  if (kind === 'user') return '/users';
  return undefined;
}

/** An event's target on one line: its kind, and its name (or id, cut short) linked to its page; the full id in the title. */
export function AuditTarget({ event, name }: { event: Pick<AuditEvent, 'targetKind' | 'targetId'>; name: string | undefined }) {
  const { targetKind: kind, targetId: id } = event;
  if (!id) return <>{kind} —</>;
  const link = targetLink(kind, id);
  const label = name ?? id;
  return (
    <span className="audit-target" title={`${kind} ${id}`}>
      {kind} {link ? <Link to={link} className={name ? undefined : 'mono'}>{label}</Link> : <code>{label}</code>}
    </span>
  );
}
