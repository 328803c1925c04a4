import { useState, type SubmitEvent } from 'react';
import type { User } from '../../api/types';
import { SelectField, TextField } from '../../components/Field';
import { localToIso, noFilters, type AuditFilters } from './audit-filters';

/** The values of targetKind the Controller writes today; the field takes any text. */
const targetKinds = ['user', 'team', 'membership', 'role', 'api_token', 'node', 'server', 'network', 'catalog'];

interface AuditFilterFormProps {
  /** The filters in force; the page remounts the form (by key) when the address changes them. */
  initial: AuditFilters;
  onApply: (filters: AuditFilters) => void;
  /** The search's problem, shown next to the filter it names. */
  error: unknown;
  /** Every user, for the actor picker; undefined falls back to a user-id field. */
  users: User[] | undefined;
}

/** Every filter of GET /audit-events. */
export function AuditFilterForm({ initial, onApply, error, users }: AuditFilterFormProps) {
  const [form, setForm] = useState<AuditFilters>(initial);
  const [timeError, setTimeError] = useState<{ since?: string; until?: string }>({});
  const set = (key: keyof AuditFilters) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const submit = (e: SubmitEvent<HTMLFormElement>) => {
    e.preventDefault();
    const bad = (v: string) => (localToIso(v) === null ? 'Enter a date and time.' : undefined);
    const errors = { since: bad(form.since), until: bad(form.until) };
    setTimeError(errors);
    if (!errors.since && !errors.until) onApply(form);
  };
  return (
    <form className="card admin-form audit-filters" onSubmit={submit} noValidate aria-label="Audit log filters">
      <div className="filters">
        {users ? (
          <SelectField label="Actor" field="actorUserId" error={error} value={form.actorUserId} onChange={set('actorUserId')}>
            <option value="">Anyone</option>
            {users.map((u) => <option key={u.id} value={u.id}>{u.displayName} ({u.username})</option>)}
            {form.actorUserId && !users.some((u) => u.id === form.actorUserId) ? <option value={form.actorUserId}>{form.actorUserId} (no such user now)</option> : null}
          </SelectField>
        ) : (
          <TextField label="Actor user ID" field="actorUserId" error={error} value={form.actorUserId} onChange={set('actorUserId')} autoComplete="off" spellCheck={false} />
        )}
        <TextField label="Action" field="action" error={error} value={form.action} onChange={set('action')} autoComplete="off" spellCheck={false} hint="Exact, e.g. node.create." />
        <TextField label="Target kind" field="targetKind" error={error} value={form.targetKind} onChange={set('targetKind')} autoComplete="off" spellCheck={false} list="audit-target-kinds" />
        <datalist id="audit-target-kinds">{targetKinds.map((k) => <option key={k} value={k} />)}</datalist>
        <TextField label="Target ID" field="targetId" error={error} value={form.targetId} onChange={set('targetId')} autoComplete="off" spellCheck={false} />
        <SelectField label="Outcome" field="outcome" error={error} value={form.outcome} onChange={set('outcome')}>
          <option value="">Any</option>
          <option value="SUCCESS">SUCCESS</option>
          <option value="DENIED">DENIED</option>
          <option value="FAILED">FAILED</option>
        </SelectField>
        <TextField label="Since" field="since" type="datetime-local" step={1} error={error} localError={timeError.since} value={form.since} onChange={set('since')} hint="Inclusive, your local time." />
        <TextField label="Until" field="until" type="datetime-local" step={1} error={error} localError={timeError.until} value={form.until} onChange={set('until')} hint="Exclusive." />
      </div>
      <div className="actions">
        <button type="submit" className="primary">Search</button>
        <button type="button" onClick={() => onApply(noFilters)}>Clear filters</button>
      </div>
    </form>
  );
}
