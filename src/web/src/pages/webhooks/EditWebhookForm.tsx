import { useMutation } from '@tanstack/react-query';
import { useState, type SubmitEvent } from 'react';
import { api } from '../../api/client';
import type { Team, UpdateWebhook, Webhook } from '../../api/types';
import { FormProblem } from '../../components/FormProblem';
import { WebhookControls, webhookControlFields, type WebhookValue } from './WebhookControls';

const valueOf = (hook: Webhook): WebhookValue => ({ name: hook.name, url: hook.url, format: hook.format, events: hook.events, teamId: hook.teamId ?? '', secret: '' });

/** Every field the form may change; a secret only when one is typed (empty keeps the stored one, which is never shown). */
function body(value: WebhookValue): UpdateWebhook {
  return { name: value.name.trim(), url: value.url.trim(), format: value.format, events: value.events, ...(value.secret ? { secret: value.secret } : {}) };
}

interface EditWebhookFormProps {
  webhook: Webhook;
  teams: Team[];
  admin: boolean;
  /** Saved (with the webhook as stored now) or cancelled: the form closes. */
  onClose: (saved?: Webhook) => void;
}

/** PATCH /webhooks/{id}: the New webhook form's controls, filled with the webhook as it is; its team stays. */
export function EditWebhookForm({ webhook, teams, admin, onClose }: EditWebhookFormProps) {
  const [value, setValue] = useState(() => valueOf(webhook));
  const save = useMutation({ mutationFn: (b: UpdateWebhook) => api.webhooks.update(webhook.id, b), onSuccess: (saved) => onClose(saved) });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    save.mutate(body(value));
  };
  const headingId = `edit-webhook-${webhook.id}-heading`;
  return (
    <form className="card admin-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>Edit webhook {webhook.name}</h2>
      <WebhookControls value={value} onChange={setValue} error={save.error} teams={teams} admin={admin} editing={{ hasSecret: webhook.hasSecret }} />
      <FormProblem error={save.error} fields={webhookControlFields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
        <button type="button" onClick={() => onClose()} disabled={save.isPending}>Cancel</button>
      </div>
    </form>
  );
}
