import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SubmitEvent } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ProblemAlert } from '../../components/ProblemAlert';
import { rememberServer } from '../../api/server-cache';
import { ServerSpecFields, serverSpecFields, useServerSpec } from '../servers/ServerSpecFields';

/** Creates the network's one proxy from a PROXY template; the API places it where the network's port is free. */
export function NewProxyForm() {
  const client = useQueryClient();
  const spec = useServerSpec('PROXY', { cpu: '500', memory: '512' });
  const create = useMutation({
    mutationFn: api.network.createProxy,
    onSuccess: (proxy) => {
      rememberServer(client, proxy);
      void client.invalidateQueries({ queryKey: queryKeys.network.all });
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const body = spec.body();
    if (body) create.mutate(body);
  };
  return (
    <form onSubmit={submit} noValidate aria-label="New proxy">
      <p>The network has no proxy yet: players cannot connect until one runs.</p>
      <ProblemAlert error={spec.templates.error ?? spec.versionList.error} />
      <ServerSpecFields spec={spec} error={create.error} nodeHint="Optional: without one the best-fitting Node whose host has the network's port free is chosen." />
      <ProblemAlert error={create.error} fields={serverSpecFields} />
      <button type="submit" className="primary" disabled={create.isPending}>{create.isPending ? 'Creating proxy…' : 'Create proxy'}</button>
    </form>
  );
}
