import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api } from '../api/client';
import { isProblem } from '../api/problem';
import { queryKeys } from '../api/query-keys';
import type { User } from '../api/types';

/** Whether the signed-in user may change Nodes: a convenience for hiding controls; the API decides. */
export const mayManageNodes = (me: User | null | undefined) => !!me && (me.globalAdmin || me.globalPermissions.includes('nodes.manage'));

/** The signed-in user, or null when nobody is (a 401 is an answer here, not an error). */
export function useMe() {
  return useQuery({
    queryKey: queryKeys.me,
    queryFn: async (): Promise<User | null> => {
      try {
        return await api.me.get();
      } catch (e) {
        if (isProblem(e) && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 60_000,
  });
}

export function useSetupStatus(enabled = true) {
  return useQuery({ queryKey: queryKeys.setup, queryFn: api.setup.status, enabled, staleTime: Infinity });
}

/** After setup or sign-in: the answer is the user, so `me` is known without asking again. */
export function useSignedIn() {
  const client = useQueryClient();
  return (user: User) => {
    client.setQueryData(queryKeys.setup, { done: true });
    client.setQueryData(queryKeys.me, user);
  };
}

export function useSignOut() {
  const client = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: api.auth.logout,
    onSettled: () => {
      client.clear();
      client.setQueryData(queryKeys.me, null);
      client.setQueryData(queryKeys.setup, { done: true });
      void navigate('/sign-in');
    },
  });
}
