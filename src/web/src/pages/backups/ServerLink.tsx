import { Link } from 'react-router';
import type { ServerListItem } from '../../api/types';

/** A server's name as a link; a server no longer listed (deleted) shows its short id. */
export function ServerLink({ id, servers }: { id: string; servers: ServerListItem[] | undefined }) {
  const server = servers?.find((s) => s.id === id);
  if (server) return <Link className="name-link" to={`/servers/${id}`}>{server.name}</Link>;
  return <span className="mono" title={id}>{id.slice(0, 8)}{servers ? ' (deleted)' : ''}</span>;
}
