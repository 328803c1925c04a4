import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from './query-keys';
import type { ServerDetail } from './types';

/**
 * Keeps a server's detail from a command's answer, then fetches it again: watch events that
 * arrived while the command was on its way may be newer than the answer (a proxy installed
 * before its create returned), and an answer must never put the page back in time.
 */
export function rememberServer(client: QueryClient, detail: ServerDetail): void {
  const key = queryKeys.servers.detail(detail.id);
  client.setQueryData(key, detail);
  void client.invalidateQueries({ queryKey: key, exact: true });
}
