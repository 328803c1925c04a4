import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { allPages } from '../../api/reference-data';
import { useMe } from '../../app/session';

/** Destinations are for global administrators only: others never ask, and back up to the default. */
export function useDestinations() {
  const me = useMe();
  const admin = !!me.data?.globalAdmin;
  const destinations = useQuery({
    queryKey: queryKeys.backupDestinations, queryFn: () => allPages(api.backupDestinations.list), enabled: admin, staleTime: 30_000,
  });
  return { admin, destinations };
}
