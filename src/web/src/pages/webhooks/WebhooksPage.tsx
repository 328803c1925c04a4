import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { nameOf, useAllTeams } from '../../api/reference-data';
import type { Webhook } from '../../api/types';
import { useMe } from '../../app/session';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable, type Column } from '../../components/DataTable';
import { Loading } from '../../components/Loading';
import { Pager, useCursorPager } from '../../components/Pager';
import { ProblemAlert } from '../../components/ProblemAlert';
import '../admin.css';
import { EditWebhookForm } from './EditWebhookForm';
import { NewWebhookForm } from './NewWebhookForm';
import { WebhookDeliveries } from './WebhookDeliveries';

/**
 * The webhooks you may manage: a team's (with `servers.update` there) or the whole fleet's (global
 * administrators). Each row opens its deliveries or its Edit form; `Send test` queues a delivery and shows them.
 */
export function WebhooksPage() {
  const client = useQueryClient();
  const me = useMe();
  const admin = me.data?.globalAdmin === true;
  const pager = useCursorPager();
  const webhooks = useQuery({ queryKey: queryKeys.webhooks.list(pager.cursor), queryFn: () => api.webhooks.list({ cursor: pager.cursor }) });
  const teams = useAllTeams();
  // The id, not the row: the deliveries follow the webhook through the list's refetches.
  const [shown, setShown] = useState<string>();
  const shownWebhook = webhooks.data?.items.find((w) => w.id === shown);
  const [editing, setEditing] = useState<string>();
  const [saved, setSaved] = useState<string>();
  const editedWebhook = webhooks.data?.items.find((w) => w.id === editing);
  const edit = (id: string | undefined) => {
    setSaved(undefined);
    setEditing(id);
  };
  const test = useMutation({
    mutationFn: (hook: Webhook) => api.webhooks.test(hook.id),
    onSuccess: (_delivery, hook) => {
      setShown(hook.id);
      void client.invalidateQueries({ queryKey: queryKeys.webhooks.deliveries.all(hook.id) });
    },
  });
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.webhooks.all });

  const columns: Column<Webhook>[] = [
    { header: 'Name', essential: true, cell: (w) => <strong>{w.name}</strong> },
    { header: 'Team', essential: true, cell: (w) => (w.teamId ? nameOf(teams.data, w.teamId) : 'Whole fleet') },
    { header: 'URL', cell: (w) => <code className="path">{w.url}</code> },
    { header: 'Format', cell: (w) => w.format },
    { header: 'Events', cell: (w) => <ul className="tag-list">{w.events.map((e) => <li key={e}><code>{e}</code></li>)}</ul> },
    { header: 'Signed', cell: (w) => (w.hasSecret ? 'Yes' : 'No') },
    {
      header: 'Actions', essential: true, cell: (w) => (
        <div className="row-actions">
          <button type="button" aria-expanded={shown === w.id} onClick={() => setShown(shown === w.id ? undefined : w.id)}>
            Deliveries<span className="visually-hidden"> of {w.name}</span>
          </button>
          <button type="button" aria-expanded={editing === w.id} onClick={() => edit(editing === w.id ? undefined : w.id)}>
            Edit<span className="visually-hidden"> {w.name}</span>
          </button>
          <button type="button" onClick={() => test.mutate(w)} disabled={test.isPending && test.variables.id === w.id}>
            Send test<span className="visually-hidden"> to {w.name}</span>
          </button>
          <ConfirmButton title={`Delete the webhook ${w.name}?`} confirmLabel="Delete" action={() => api.webhooks.delete(w.id)}
            onDone={() => { if (shown === w.id) setShown(undefined); if (editing === w.id) setEditing(undefined); void refresh(); }}
            description="Its deliveries go with it; those still pending are not sent.">
            Delete<span className="visually-hidden"> {w.name}</span>
          </ConfirmButton>
        </div>
      ),
    },
  ];

  return (
    <section>
      <h1>Webhooks</h1>
      <p className="lede">Each event a webhook hears is POSTed to its URL as it happens, retried until the endpoint answers 2xx or the retries run out.</p>
      <ProblemAlert error={webhooks.error} />
      {webhooks.data ? <DataTable caption="Webhooks" columns={columns} rows={webhooks.data.items} rowKey={(w) => w.id} empty="No webhooks yet." /> : webhooks.error ? null : <Loading what="webhooks" />}
      <Pager pager={pager} nextCursor={webhooks.data?.nextCursor} label="Webhook pages" />
      <ProblemAlert error={test.error} />
      {test.isSuccess ? <p role="status" className="success">Test queued for {test.variables.name}.</p> : null}
      {saved ? <p role="status" className="success">Webhook {saved} saved.</p> : null}
      {editedWebhook ? (
        <EditWebhookForm key={`edit-${editedWebhook.id}`} webhook={editedWebhook} teams={teams.data ?? []} admin={admin}
          onClose={(done) => { setEditing(undefined); setSaved(done?.name); if (done) void refresh(); }} />
      ) : null}
      {shownWebhook ? <WebhookDeliveries key={shownWebhook.id} webhook={shownWebhook} /> : null}
      <NewWebhookForm teams={teams.data ?? []} admin={admin} onCreated={() => void refresh()} />
    </section>
  );
}
