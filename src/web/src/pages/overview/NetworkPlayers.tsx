import type { Network, ServerDetail, ServerListItem } from '../../api/types';
import { formatPlayers } from '../../format/units';

interface NetworkPlayersProps {
  network: Network;
  /** Every server the caller sees. */
  servers: ServerListItem[];
  proxy: ServerDetail | undefined;
}

/**
 * Players through the proxy (everyone who came in by the network's address) and on its members
 * (what each member's own ping says): the two differ while players connect or a member is not pinged.
 */
export function NetworkPlayers({ network, servers, proxy }: NetworkPlayersProps) {
  const members = servers.filter((s) => s.inNetwork && s.kind === 'GAME_SERVER');
  const reporting = members.filter((s) => s.playersOnline !== undefined);
  const onMembers = reporting.reduce((sum, s) => sum + (s.playersOnline ?? 0), 0);
  const silent = members.length - reporting.length;
  let throughProxy = 'no proxy yet';
  if (network.proxyServerId) {
    throughProxy = proxy?.status.runtimeState === 'RUNNING' ? formatPlayers(proxy.status.players, proxy.playersOnline) : 'none (the proxy is not running)';
  }
  return (
    <dl className="facts">
      <dt>Through the proxy</dt><dd>{throughProxy}</dd>
      <dt>On the members</dt>
      <dd>
        {onMembers} on {members.length} {members.length === 1 ? 'member' : 'members'}
        {silent > 0 ? ` (${silent} not reporting: stopped or not answering its ping)` : ''}
      </dd>
    </dl>
  );
}
