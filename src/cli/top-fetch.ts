import pMap from 'p-map';
import type { NodeInfo, ServerDetail, ServerItem } from './api-types.js';
import type { CliClient } from './client.js';
import { ApiError } from './errors.js';
import { loadNames } from './resolve.js';
import { isRunning, nodeTopOf, serverTopOf, type NodeTop, type ServerTop } from './top-rows.js';

/** Server details asked for at once: enough to be quick on a large fleet without flooding the Controller. */
export const detailsInFlight = 8;

/**
 * The running servers among those the caller can read, with their usage: the list item has none,
 * so each running one's detail is fetched. A server deleted between the list and its detail is left out.
 */
export async function serverTops(client: CliClient, filter: { teamId?: string; nodeId?: string }): Promise<ServerTop[]> {
  const [items, names] = await Promise.all([client.all<ServerItem>('/servers', filter), loadNames(client, { nodes: true })]);
  const details = await pMap(items.filter(isRunning), async (s) => {
    try {
      return await client.get<ServerDetail>(`/servers/${s.id}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return undefined;
      throw e;
    }
  }, { concurrency: detailsInFlight });
  return details.flatMap((d) => (d === undefined ? [] : [serverTopOf(d, names)]));
}

/** Every Node the caller can see, with the servers it can see counted toward their Nodes. */
export async function nodeTops(client: CliClient): Promise<NodeTop[]> {
  const [nodes, servers] = await Promise.all([client.all<NodeInfo>('/nodes'), client.all<ServerItem>('/servers')]);
  return nodes.map((n) => nodeTopOf(n, servers));
}
