import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { useTemplates } from '../../../api/reference-data';
import type { ServerDetail } from '../../../api/types';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { CheckboxField } from '../../../components/Choices';
import '../../admin.css';
import { rememberServer } from '../../../api/server-cache';

/** What a membership change does to this server, said before it is applied. */
function consequence(server: ServerDetail, join: boolean): string {
  const running = server.status.runtimeState === 'RUNNING' || server.status.runtimeState === 'STARTING';
  const change = join ? 'joins the network' : 'leaves the network';
  if (!running) return `${server.name} ${change} when it next starts; nothing else changes now.`;
  return `${server.name} is running: it keeps running as it is, marked RESTART_PENDING, and ${change} when it restarts. Restart it to apply the change now.`;
}

/** Joining or leaving the network, after a confirmation that says what happens; a running server takes it at its next start. */
export function NetworkMembership({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const templates = useTemplates();
  const template = templates.data?.find((t) => t.id === server.software.template);
  const capable = template?.networkMember ?? true;
  // Set in the click itself and kept while the dialog asks: until then React would put the
  // controlled box back as it was (a flicker, and a click that seems not to take).
  const [asked, setAsked] = useState<boolean>();
  const [confirming, setConfirming] = useState<boolean>();
  const update = useMutation({
    mutationFn: (inNetwork: boolean) => api.servers.update(server.id, { inNetwork }),
    onSuccess: (detail) => {
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
      setConfirming(undefined);
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
          setConfirming(v);
        }} />
      <ProblemAlert error={update.error} fields={['inNetwork']} />
      <ConfirmDialog open={confirming !== undefined} title={confirming ? 'Join the network?' : 'Leave the network?'}
        confirmLabel={confirming ? 'Join the network' : 'Leave the network'} pending={update.isPending} error={update.error}
        onConfirm={() => confirming !== undefined && update.mutate(confirming)}
        onCancel={() => { setConfirming(undefined); setAsked(undefined); update.reset(); }}>
        <p>{consequence(server, confirming ?? false)}</p>
      </ConfirmDialog>
      {server.markers.includes('RESTART_PENDING') ? <p role="status"><span className="marker">RESTART_PENDING</span>: the change applies at the next start</p> : null}
    </section>
  );
}
