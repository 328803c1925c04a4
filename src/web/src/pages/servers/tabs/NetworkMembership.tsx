import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { useTemplates } from '../../../api/reference-data';
import type { ServerDetail } from '../../../api/types';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { CheckboxField } from '../../admin-components/Choices';
import '../../admin.css';
import { rememberServer } from '../../../api/server-cache';

/** Joining or leaving the network: saved at once, taken by a running server at its next start. */
export function NetworkMembership({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const templates = useTemplates();
  const template = templates.data?.find((t) => t.id === server.software.template);
  const capable = template?.networkMember ?? true;
  // Set in the click itself: the mutation's pending state arrives a tick later, and until then React
  // would put the controlled box back as it was (a flicker, and a click that seems not to take).
  const [asked, setAsked] = useState<boolean>();
  const update = useMutation({
    mutationFn: (inNetwork: boolean) => api.servers.update(server.id, { inNetwork }),
    onSuccess: (detail) => {
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
    onSettled: () => setAsked(undefined),
  });
  const hint = capable
    ? 'Members are routed by the network\'s proxy while they run as members.'
    : `${server.software.template} servers cannot join the network: their template is not a network member.`;
  return (
    <section className="card" aria-labelledby="network-heading">
      <h2 id="network-heading">Network</h2>
      <CheckboxField label="Network member" field="inNetwork" error={update.error} hint={hint}
        checked={asked ?? server.inNetwork} disabled={!capable || asked !== undefined}
        onChange={(v) => {
          setAsked(v);
          update.mutate(v);
        }} />
      <ProblemAlert error={update.error} fields={['inNetwork']} />
      {server.markers.includes('RESTART_PENDING') ? <p role="status"><span className="marker">RESTART_PENDING</span>: the change applies at the next start</p> : null}
    </section>
  );
}
