import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';
import { api } from '../../api/client';
import type { StreamEvent } from '../../api/event-stream';
import { queryKeys } from '../../api/query-keys';
import type { Page, ServerDetail, ServerListItem, ServerListQuery } from '../../api/types';
import { useEventStream } from '../../api/use-event-stream';

const matches = (filters: ServerListQuery, s: ServerListItem) =>
  (!filters.teamId || s.teamId === filters.teamId) && (!filters.nodeId || s.nodeId === filters.nodeId) && (!filters.convergence || s.convergence === filters.convergence)
  && (!filters.kind || s.kind === filters.kind) && (filters.inNetwork === undefined || s.inNetwork === filters.inNetwork);

/** Writes one `server` event into every cached list and the server's detail. */
function applyServer(client: QueryClient, item: ServerListItem): void {
  let unseen = false;
  for (const [key, page] of client.getQueriesData<Page<ServerListItem>>({ queryKey: queryKeys.servers.lists })) {
    // A list still on its first fetch may answer from before this event: it is fetched again.
    if (!page) { unseen = true; continue; }
    const filters = (key[2] ?? {}) as ServerListQuery;
    const index = page.items.findIndex((s) => s.id === item.id);
    if (index >= 0 && !matches(filters, item)) {
      unseen = true;
    } else if (index >= 0) {
      const items = page.items.slice();
      items[index] = item;
      client.setQueryData(key, { ...page, items });
    } else if (matches(filters, item)) {
      unseen = true;
    }
  }
  // A server a list does not hold yet (just created elsewhere) or no longer belongs in (it left the network): lists are fetched again.
  if (unseen) void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
  const detailKey = queryKeys.servers.detail(item.id);
  const detail = client.getQueryData<ServerDetail>(detailKey);
  if (detail) {
    // The list item says `sleeping` at its top level, the detail in its status (with the time, which comes with the fetch below).
    const { sleeping, ...fields } = item;
    const { sleeping: _, sleepingSince, ...status } = detail.status;
    const asleep = sleeping ? { sleeping, ...(sleepingSince ? { sleepingSince } : {}) } : {};
    client.setQueryData<ServerDetail>(detailKey, { ...detail, ...fields, status: { ...status, runtimeState: item.runtimeState, ...asleep } });
  }
  // observedGeneration, conditions and markers are only in the detail; and a detail still on its
  // first fetch may answer from before this event, so its fetch is cancelled and made again.
  void client.invalidateQueries({ queryKey: detailKey, exact: true });
}

/** Fetches every cached server list and detail again: what the page shows becomes the current state. */
const catchUp = (client: QueryClient) =>
  void client.invalidateQueries({ queryKey: queryKeys.servers.all, predicate: ({ queryKey }) => queryKey[1] === 'list' || (queryKey[1] === 'detail' && queryKey.length === 3) });

/**
 * Keeps the server lists and details in the query cache live from `GET /servers/watch`. Each
 * connection opens with a snapshot of every server, up to `synced`: rather than apply it item by
 * item, lists and details are fetched again once at `synced` (which also catches up after the
 * stream was down); the changes after it are applied as they come.
 */
export function useServerWatch() {
  const client = useQueryClient();
  const syncing = useRef(true);
  const onOpen = useCallback(() => (syncing.current = true), []);
  const onEvent = useCallback((e: StreamEvent) => {
    if (e.event === 'synced') {
      syncing.current = false;
      catchUp(client);
      return;
    }
    if (syncing.current) return;
    if (e.event === 'server') applyServer(client, e.data as ServerListItem);
    if (e.event === 'server-deleted') {
      const { id } = e.data as { id: string };
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
      void client.invalidateQueries({ queryKey: queryKeys.servers.detail(id), exact: true });
    }
  }, [client]);
  return useEventStream(api.servers.watchPath, onEvent, { onOpen });
}
