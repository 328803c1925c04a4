import type { CreateWebhook, Team, WebhookFormat } from '../../api/types';
import { CheckboxGroup } from '../../components/Choices';
import { SelectField, TextField } from '../../components/Field';
import { eventChoices, eventNames } from './webhook-events';

/** The New and Edit forms' value: the request's fields, `teamId` empty for a fleet-wide webhook, `secret` empty to send unsigned (or, editing, to keep it). */
export type WebhookValue = Required<CreateWebhook>;

/** The request fields the controls show problems for; the form's alert shows any other. */
export const webhookControlFields = ['name', 'url', 'format', 'events', 'teamId', 'secret'];

const formats: { value: WebhookFormat; label: string }[] = [
  { value: 'json', label: 'JSON: the event as Cairn describes it' },
  { value: 'discord', label: 'Discord: a message with an embed' },
  { value: 'slack', label: 'Slack: a text message' },
];

interface WebhookControlsProps {
  value: WebhookValue;
  onChange: (value: WebhookValue) => void;
  error: unknown;
  teams: Team[];
  admin: boolean;
  /** Editing: the team is fixed (the API changes it never) and a secret typed replaces the stored one. */
  editing?: { hasSecret: boolean };
}

/**
 * A webhook's controls. A fleet-wide webhook (no team) is for global administrators, so others are
 * asked to choose a team; choosing one drops the Node events, which only fleet-wide webhooks hear.
 */
export function WebhookControls({ value, onChange, error, teams, admin, editing }: WebhookControlsProps) {
  const set = <K extends keyof WebhookValue>(key: K, v: WebhookValue[K]) => onChange({ ...value, [key]: v });
  const fleetWide = value.teamId === '';
  const chooseTeam = (teamId: string) => {
    const allowed = eventNames(teamId === '');
    onChange({ ...value, teamId, events: value.events.filter((e) => allowed.includes(e)) });
  };
  const teamHint = editing ? 'A webhook keeps its team: to hear another, create a new one.'
    : admin ? 'A team\'s webhook hears its servers\' events only; with no team it hears the whole fleet.' : 'You manage the webhooks of teams where you may change servers.';
  const secretHint = editing
    ? `16 to 256 characters, replacing the ${editing.hasSecret ? 'current secret' : 'unsigned deliveries'}. Empty: ${editing.hasSecret ? 'the current secret stays' : 'deliveries stay unsigned'}.`
    : '16 to 256 characters. Each delivery is then signed (Cairn-Signature); the secret is never shown again.';
  return (
    <>
      <TextField label="Name" field="name" error={error} value={value.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" hint="What it is for, e.g. Ops Discord." required />
      <TextField label="URL" field="url" error={error} value={value.url} onChange={(e) => set('url', e.target.value)} type="url" autoComplete="off" spellCheck={false}
        placeholder="https://discord.com/api/webhooks/…" hint="Each event is POSTed here (http or https); redirects are not followed." required />
      <SelectField label="Format" field="format" error={error} value={value.format} onChange={(e) => set('format', e.target.value as WebhookFormat)}>
        {formats.map((f) => <option key={f.value} value={f.value}>{f.label}</option>)}
      </SelectField>
      <SelectField label="Team" field="teamId" error={error} value={value.teamId} onChange={(e) => chooseTeam(e.target.value)} disabled={editing !== undefined} hint={teamHint}>
        <option value="" disabled={!admin}>{admin || editing ? 'No team: the whole fleet' : 'Choose a team'}</option>
        {teams.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
      </SelectField>
      <CheckboxGroup legend="Events" field="events" error={error} choices={eventChoices(fleetWide)} selected={value.events} onChange={(events) => set('events', events)}
        hint={fleetWide ? 'Choose at least one.' : 'Choose at least one. Node events reach fleet-wide webhooks only.'} />
      <TextField label={editing ? 'New secret (optional)' : 'Secret (optional)'} field="secret" type="password" error={error} value={value.secret} onChange={(e) => set('secret', e.target.value)}
        autoComplete="new-password" hint={secretHint} />
    </>
  );
}
