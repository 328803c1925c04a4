import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../../api/client';
import { queryKeys } from '../../../api/query-keys';
import { nameOf, useAllNodes } from '../../../api/reference-data';
import type { ServerDetail } from '../../../api/types';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { SelectField } from '../../../components/Field';
import { ProblemAlert } from '../../../components/ProblemAlert';
import { migrationTargets, workflowText } from '../../backups/backup-format';
import { rememberServer } from '../../../api/server-cache';

/**
 * POST /servers/{id}/migrate to another Node, behind a dialog; while the server is MIGRATING its
 * workflow's step is shown, kept live by the page's watch stream. A failure leaves a
 * MIGRATION_FAILED condition, which the page's Conditions show.
 */
export function MigrationSection({ server }: { server: ServerDetail }) {
  const client = useQueryClient();
  const nodes = useAllNodes(true);
  const targets = migrationTargets(nodes.data, server);
  const [chosen, setChosen] = useState('');
  const [confirming, setConfirming] = useState(false);
  const nodeId = targets.some((n) => n.id === chosen) ? chosen : (targets.find((n) => n.acceptsPlacements)?.id ?? '');
  const migrate = useMutation({
    mutationFn: () => api.servers.migrate(server.id, { nodeId }),
    onSuccess: (detail) => {
      setConfirming(false);
      rememberServer(client, detail);
      void client.invalidateQueries({ queryKey: queryKeys.servers.lists });
    },
  });
  const migrating = server.phase === 'MIGRATING';
  const target = nameOf(nodes.data, nodeId);
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    migrate.reset();
    setConfirming(true);
  };
  return (
    <section className="card" aria-labelledby="migration-heading">
      <h2 id="migration-heading">Migration</h2>
      <p className="hint">Now on {nameOf(nodes.data, server.nodeId)}. The files are copied while the server runs; it stops only for the last changes and starts again on the new Node.</p>
      {migrating && server.workflow ? (
        <p role="status">
          <progress aria-label="Migration in progress" /> {workflowText(server.workflow)}
          {server.workflow.targetNodeId ? ` (to ${nameOf(nodes.data, server.workflow.targetNodeId)})` : null}
        </p>
      ) : null}
      <ProblemAlert error={nodes.error} />
      <form onSubmit={submit} noValidate aria-label="Migrate">
        <SelectField label="Target Node" field="nodeId" error={migrate.error} value={nodeId} onChange={(e) => setChosen(e.target.value)}
          hint={targets.length === 0 && nodes.data ? 'There is no other Node to migrate to.' : undefined}>
          {targets.map((n) => <option key={n.id} value={n.id} disabled={!n.acceptsPlacements}>{n.name}{n.acceptsPlacements ? '' : ' (not accepting placements)'}</option>)}
        </SelectField>
        <div className="actions">
          <button type="submit" disabled={!nodeId || migrating || server.phase !== 'READY'}>Migrate</button>
        </div>
      </form>
      {confirming ? null : <ProblemAlert error={migrate.error} fields={['nodeId']} />}
      <ConfirmDialog open={confirming} title={`Migrate ${server.name} to ${target}?`} confirmLabel="Migrate" onConfirm={() => migrate.mutate()}
        onCancel={() => setConfirming(false)} pending={migrate.isPending} error={migrate.error}>
        <p>{server.name}'s files are copied to {target} while it runs. Then it is stopped, the last changes are copied, and it starts on {target} if it was running: players are disconnected for that moment.</p>
        <p>Its game port may change. If a step fails before the switch, the server stays on its Node as it was.</p>
      </ConfirmDialog>
    </section>
  );
}
