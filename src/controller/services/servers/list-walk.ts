import type { Repositories } from '../../store/repositories.js';
import { pageItemsOf, type ServerListItemView } from './views.js';

/**
 * Up to `limit` list items after `afterId`, in creation order. Convergence is derived, not stored:
 * it is filtered while walking batches.
 */
export async function walkServerList(
  repos: Pick<Repositories, 'servers'>,
  isConnected: (nodeId: string) => boolean,
  query: { filter: Record<string, unknown>[]; convergence: string | undefined },
  afterId: string | undefined,
  limit: number,
): Promise<ServerListItemView[]> {
  const items: ServerListItemView[] = [];
  const itemOf = pageItemsOf(isConnected);
  let lastId = afterId;
  for (;;) {
    const conditions = lastId === undefined ? query.filter : [...query.filter, { _id: { $gt: lastId } }];
    const batch = await repos.servers.findShared(conditions.length ? { $and: conditions } : {}, { sort: { _id: 1 }, limit });
    for (const doc of batch) {
      const item = itemOf(doc);
      if (!query.convergence || item.convergence === query.convergence) items.push(item);
      if (items.length === limit) return items;
    }
    if (batch.length < limit) return items;
    lastId = batch[batch.length - 1]._id;
  }
}
