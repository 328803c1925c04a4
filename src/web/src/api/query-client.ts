import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isProblem } from './problem';
import { queryKeys } from './query-keys';

/**
 * The query cache. A 401 anywhere means the session ended: `me` becomes null and the router
 * sends the person to sign in; a 403 password_change_required refreshes `me` the same way.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (e) => onError(e) }),
    mutationCache: new MutationCache({ onError: (e) => onError(e) }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        // Problems the API answered are final; only an unreachable Controller is worth a retry.
        retry: (count, error) => count < 2 && (!isProblem(error) || error.status === 0 || error.status >= 502),
      },
    },
  });
  function onError(error: unknown): void {
    if (!isProblem(error)) return;
    if (error.status === 401 && error.code === 'unauthenticated') client.setQueryData(queryKeys.me, null);
    if (error.code === 'password_change_required') void client.invalidateQueries({ queryKey: queryKeys.me });
  }
  return client;
}
