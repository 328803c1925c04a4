import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { useAllNodes } from '../../api/reference-data';
import type { ServerDetail } from '../../api/types';
import { CopyValue } from '../../components/CopyValue';

/**
 * Where players point their Minecraft client. A network member (and the proxy itself) is reached
 * through the network's address, since members trust the proxy's forwarding and must not be joined
 * directly; any other server at its Node's address and its game port.
 */
function useAddress(server: ServerDetail): string | undefined {
  const throughNetwork = server.kind === 'PROXY' || server.inNetwork;
  const network = useQuery({ queryKey: queryKeys.network.record, queryFn: api.network.get, enabled: throughNetwork });
  const nodes = useAllNodes();
  if (throughNetwork) return network.data ? `${network.data.address}:${network.data.port}` : undefined;
  const host = nodes.data?.find((n) => n.id === server.nodeId)?.reachAddress;
  return host && server.gamePort ? `${host}:${server.gamePort}` : undefined;
}

/** The address players use, with a Copy button; where the clipboard is refused the text is selected to copy by hand. */
export function PlayerAddress({ server }: { server: ServerDetail }) {
  const address = useAddress(server);
  if (!address) return <span className="hint">not known yet (the Node has not reported its address)</span>;
  return <CopyValue label="address" value={address} />;
}
