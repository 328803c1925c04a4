import { api } from '../../api/client';
import type { CreateWebhook, Team, Webhook } from '../../api/types';
import { CreateForm } from '../../components/CreateForm';
import { WebhookControls, webhookControlFields, type WebhookValue } from './WebhookControls';

const empty: WebhookValue = { name: '', url: '', format: 'json', events: [], teamId: '', secret: '' };

function body(value: WebhookValue): CreateWebhook {
  return {
    name: value.name.trim(), url: value.url.trim(), format: value.format, events: value.events,
    ...(value.teamId ? { teamId: value.teamId } : {}), ...(value.secret ? { secret: value.secret } : {}),
  };
}

/** POST /webhooks. */
export function NewWebhookForm({ teams, admin, onCreated }: { teams: Team[]; admin: boolean; onCreated: (created: Webhook) => void }) {
  return (
    <CreateForm noun="webhook" empty={empty} body={body} create={api.webhooks.create} onCreated={onCreated} fields={webhookControlFields}
      done={(hook) => <>Webhook {hook.name} created.</>}>
      {(value, onChange, error) => <WebhookControls value={value} onChange={onChange} error={error} teams={teams} admin={admin} />}
    </CreateForm>
  );
}
